//! The host interface (NVMe over PCIe): one submission/completion queue pair per host flow,
//! each over its own share of the logical space (a namespace); the controller fetches
//! commands round-robin while it has room (`host.fetch_size`), splits each into page-sized
//! transactions, and sends data and completion entries back over the PCIe link ([`pcie`]).
//!
//! ```text
//! SQ ─▶ fetch (PCIe: SQE [+ write data]) ─▶ FETCHED
//!   write: buffer pages in DRAM ─▶ DRAM_DONE ─▶ CQE ─▶ COMPLETED   (pages destaged later)
//!   read : per page: cache hit (DRAM) | translation ─▶ die queue ─▶ … ─▶ page done
//!   all pages done ─▶ PCIe read data + CQE ─▶ COMPLETED
//! ```

pub mod pcie;

use super::ftl::Ftl;
use super::txn::{Class, Request, Role, TxnKind};
use super::{DriveQueue, Ssd};
use crate::config::SsdConfig;
use crate::engine::{List, Slab, NONE};
use crate::time::Ps;
use lagoon_workload::{IoRequest, Op};
use pcie::PcieLink;

/// The host interface's events.
#[derive(Clone, Copy, Debug)]
pub enum HilEvent {
    /// A request's submission queue entry (and write data) reached the controller.
    Fetched { req: u32 },
    /// DRAM finished moving the request's `dram_pages` pages (a buffered write, or the pages
    /// of a read found in the cache).
    DramDone { req: u32 },
    /// The completion entry reached the host.
    Completed { req: u32 },
}

/// One flow's queue pair and namespace.
struct QueuePair {
    sq: List,
    /// Requests submitted and not completed.
    outstanding: u32,
    /// Logical pages the flow addresses: [base, base + span).
    lpa_base: u64,
    lpa_span: u64,
}

pub struct Hil {
    reqs: Slab<Request>,
    queues: Vec<QueuePair>,
    /// Controller-wide requests fetched and not completed.
    in_device: u32,
    rr_flow: usize,
    /// Flows whose next request is on its way (a timed arrival scheduled).
    arrivals_pending: u32,
    pcie: PcieLink,
    fetch_size: u32,
    sqe_bytes: u32,
    cqe_bytes: u32,
    page_bytes: u64,
    sectors_per_page: u32,
}

impl Hil {
    pub fn new(cfg: &SsdConfig, ftl: &Ftl, flows: usize) -> Self {
        let span = ftl.logical_pages / flows.max(1) as u64;
        Self {
            reqs: Slab::with_capacity(1024),
            queues: (0..flows)
                .map(|i| QueuePair {
                    sq: List::EMPTY,
                    outstanding: 0,
                    lpa_base: i as u64 * span,
                    lpa_span: span,
                })
                .collect(),
            in_device: 0,
            rr_flow: 0,
            arrivals_pending: 0,
            pcie: PcieLink::new(&cfg.host),
            fetch_size: cfg.host.fetch_size,
            sqe_bytes: cfg.host.sqe_bytes,
            cqe_bytes: cfg.host.cqe_bytes,
            page_bytes: ftl.geo.page_bytes as u64,
            sectors_per_page: ftl.geo.page_bytes / 512,
        }
    }

    /// Every flow addresses the whole logical space (one namespace shared by all queue pairs,
    /// as the connections of one NBD export are), instead of a share each.
    pub fn share_namespace(&mut self, logical_pages: u64) {
        for q in &mut self.queues {
            q.lpa_base = 0;
            q.lpa_span = logical_pages;
        }
    }

    /// The logical page (device-wide) holding byte `offset` of flow `f`'s namespace.
    pub fn lpa_of(&self, f: usize, offset: u64) -> u64 {
        let q = &self.queues[f];
        q.lpa_base + (offset / self.page_bytes) % q.lpa_span
    }

    /// Requests of flow `f` submitted and not completed.
    #[inline]
    pub fn outstanding(&self, f: usize) -> u32 {
        self.queues[f].outstanding
    }

    pub fn in_device(&self) -> u32 {
        self.in_device
    }

    /// The first logical page of flow `f`'s namespace.
    pub fn lpa_base(&self, f: usize) -> u64 {
        self.queues[f].lpa_base
    }

    /// A request in the drive.
    #[inline]
    pub fn request(&self, id: u32) -> &Request {
        &self.reqs[id]
    }

    /// A flow's next request is on its way (`true`) or arrived (`false`).
    pub fn arrival_pending(&mut self, on: bool) {
        if on {
            self.arrivals_pending += 1;
        } else {
            self.arrivals_pending -= 1;
        }
    }

    /// Every flow's requests have completed and none is on its way.
    pub fn idle(&self) -> bool {
        self.in_device == 0
            && self.arrivals_pending == 0
            && self.queues.iter().all(|q| q.outstanding == 0)
    }

    /// Requests submitted and not completed, over all flows.
    pub fn outstanding_total(&self) -> u64 {
        self.queues.iter().map(|q| q.outstanding as u64).sum()
    }

    /// The request memory held (for the report's model state).
    pub fn state_bytes(&self) -> usize {
        self.reqs.capacity() * std::mem::size_of::<Request>()
    }

    /// Logical page number (device-wide) and sector mask of the `k`-th page of a request.
    #[inline]
    fn page_of(&self, r: &Request, page_index: u64) -> (u64, u64) {
        let page = self.page_bytes;
        let fl = &self.queues[r.flow as usize];
        let lpa = fl.lpa_base + page_index % fl.lpa_span;
        let start = r.offset.max(page_index * page);
        let end = (r.offset + r.size as u64).min((page_index + 1) * page);
        let first_sector = ((start % page) / 512) as u32;
        let sectors = (end - start).div_ceil(512) as u32;
        (
            lpa,
            sector_mask(
                first_sector,
                sectors.min(self.sectors_per_page - first_sector),
            ),
        )
    }

    /// The sectors request `id` writes in logical page `lpa` (0 if it does not touch it).
    pub fn sectors_of(&self, id: u32, lpa: u64) -> u64 {
        let r = &self.reqs[id];
        let page = self.page_bytes;
        let (first, last) = (r.offset / page, (r.offset + r.size as u64 - 1) / page);
        (first..=last)
            .map(|i| self.page_of(r, i))
            .find(|p| p.0 == lpa)
            .map_or(0, |p| p.1)
    }

    /// The logical page and sectors of page `k` of request `id` (counted from its first).
    #[inline]
    pub fn page(&self, id: u32, k: u64) -> (u64, u64) {
        let r = &self.reqs[id];
        self.page_of(r, r.offset / self.page_bytes + k)
    }

    /// Put request `id` at the back of its flow's submission queue.
    pub fn sq_push(&mut self, f: usize, id: u32) {
        let q = &mut self.queues[f];
        q.outstanding += 1;
        q.sq.push_back(self.reqs.items(), id);
    }

    /// Set when the request entered its submission queue (after a host scheduler held it).
    pub fn set_enqueued(&mut self, id: u32, now: Ps) {
        self.reqs[id].enqueued = now;
    }

    /// Wait-list a write whose page `next_page` found no buffer slot.
    pub(crate) fn wait_for_buffer(&mut self, list: &mut List, id: u32, next_page: u32) {
        self.reqs[id].next_page = next_page;
        list.push_back(self.reqs.items(), id);
    }

    pub(crate) fn pop_waiter(&mut self, list: &mut List) -> u32 {
        list.pop_front(self.reqs.items())
    }

    pub(crate) fn mark_conflict(&mut self, id: u32) {
        self.reqs[id].conflict = true;
    }

    pub(crate) fn set_dram_pages(&mut self, id: u32, pages: u32) {
        self.reqs[id].dram_pages = pages;
    }

    pub(crate) fn set_next_page(&mut self, id: u32, k: u32) {
        self.reqs[id].next_page = k;
    }
}

#[inline]
fn sector_mask(first: u32, count: u32) -> u64 {
    (if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }) << first
}

impl<Q: DriveQueue> Ssd<Q> {
    /// A host request of flow `f` arriving at `arrival` (submitted `now`) becomes request
    /// `id` of the drive, addressed within the flow's namespace.
    pub fn admit(&mut self, now: Ps, f: usize, arrival: Ps, r: &IoRequest) -> u32 {
        let page = self.hil.page_bytes;
        let fl = &self.hil.queues[f];
        // Flow-relative address, wrapped into the flow's share of the logical space.
        let first_lpa = r.offset_bytes / page;
        let offset = (first_lpa % fl.lpa_span) * page + r.offset_bytes % page;
        // Warm the lookups `translate` will make once the command is fetched (a hint: no
        // effect on results); the first few pages cover most requests.
        let pages = (offset % page + r.size_bytes.max(1) as u64).div_ceil(page);
        for k in 0..pages.min(4) {
            let lpa = fl.lpa_base + (offset / page + k) % fl.lpa_span;
            if self.translate.prefetch(lpa) {
                self.ftl.prefetch_translation(lpa);
            }
            self.ftl.prefetch_mapping(lpa);
        }
        self.hil.reqs.alloc(Request {
            flow: f as u16,
            is_read: r.op == Op::Read,
            conflict: false,
            live: true,
            arrival,
            enqueued: now,
            offset,
            size: r.size_bytes.max(1),
            pending: 0,
            next_page: 0,
            dram_pages: 0,
            next: NONE,
        })
    }

    /// The controller fetches submission queue entries round-robin over flows while it has
    /// room.
    pub fn fetch(&mut self, now: Ps) {
        let h = &mut self.hil;
        let n = h.queues.len();
        while h.in_device < h.fetch_size {
            let mut found = None;
            for k in 0..n {
                let f = (h.rr_flow + k) % n;
                if h.queues[f].sq.head != NONE {
                    found = Some(f);
                    break;
                }
            }
            let Some(f) = found else { return };
            h.rr_flow = (f + 1) % n;
            let id = h.queues[f].sq.pop_front(h.reqs.items());
            h.in_device += 1;
            let r = h.reqs[id];
            let mut t = h.pcie.to_device(now, h.sqe_bytes);
            if !r.is_read {
                t = h.pcie.to_device(t, r.size);
            }
            self.q.schedule(t, HilEvent::Fetched { req: id });
        }
    }

    pub fn on_hil_event(&mut self, now: Ps, ev: HilEvent) {
        match ev {
            HilEvent::Fetched { req } => self.on_fetched(now, req),
            HilEvent::DramDone { req } => {
                let pages = self.hil.reqs[req].dram_pages;
                self.request_pages_done(now, req, pages)
            }
            HilEvent::Completed { .. } => unreachable!("completions end at the host"),
        }
    }

    fn on_fetched(&mut self, now: Ps, id: u32) {
        let r = self.hil.reqs[id];
        let page = self.hil.page_bytes;
        let first = r.offset / page;
        let last = (r.offset + r.size as u64 - 1) / page;
        self.hil.reqs[id].pending = (last - first + 1) as u32;
        if r.is_read {
            let mut hit_pages = 0;
            let mut hit_bytes = 0u64;
            for i in 0..=(last - first) {
                let (lpa, mask) = self.hil.page_of(&r, first + i);
                if self.cache.read_hit(lpa, mask) {
                    hit_pages += 1;
                    hit_bytes += mask.count_ones() as u64 * 512;
                    continue;
                }
                let t = self.alloc_txn(
                    TxnKind::UserRead,
                    Role::Request(id),
                    lpa as u32,
                    NONE,
                    NONE,
                    mask.count_ones() * 512,
                );
                self.translate(now, t);
            }
            if hit_pages > 0 {
                let end = self.datapath.dram.reserve(now, now, hit_bytes);
                self.hil.set_dram_pages(id, hit_pages);
                self.q.schedule(end, HilEvent::DramDone { req: id });
            }
        } else if self.cache.enabled() {
            self.buffer_write(now, id);
        } else {
            self.datapath.write_into_dram(now, r.size);
            for i in 0..=(last - first) {
                let (lpa, mask) = self.hil.page_of(&r, first + i);
                let t = self.alloc_txn(
                    TxnKind::UserWrite,
                    Role::Request(id),
                    lpa as u32,
                    NONE,
                    NONE,
                    mask.count_ones() * 512,
                );
                self.translate(now, t);
            }
        }
    }

    /// `pages` of request `id` are done; the last one sends the data (reads) and the
    /// completion entry to the host.
    pub(crate) fn request_pages_done(&mut self, now: Ps, id: u32, pages: u32) {
        let r = &mut self.hil.reqs[id];
        debug_assert!(r.pending >= pages);
        r.pending -= pages;
        if r.pending > 0 {
            return;
        }
        let (is_read, size) = (r.is_read, r.size);
        let mut t = now;
        if is_read {
            t = self.datapath.host_bus(t, size, Class::Read);
            t = self.hil.pcie.to_host(t, size);
        }
        t = self.hil.pcie.to_host(t, self.hil.cqe_bytes);
        // The completion entry ends on the FIFO host link: later than every earlier one.
        self.q.schedule_in_order(t, HilEvent::Completed { req: id });
    }

    /// Request `id`'s completion entry reached the host: the drive lets it go (its record is
    /// returned for the host's statistics).
    pub fn complete(&mut self, now: Ps, id: u32) -> Request {
        let r = self.hil.reqs[id];
        assert!(
            r.live && r.pending == 0,
            "request {id} completed twice or early"
        );
        self.hil.queues[r.flow as usize].outstanding -= 1;
        self.hil.in_device -= 1;
        self.last_completion = now;
        // GC performance while host I/O runs (dSSD §6.1).
        self.datapath
            .gc_ops_during_io(self.flash.gc_reads + self.flash.gc_writes);
        if let Some(tl) = &mut self.timeline {
            tl.io_bytes.add(now, r.size as u64);
        }
        self.hil.reqs[id].live = false;
        self.hil.reqs.free(id);
        r
    }

    /// Host data between the host interface and DRAM of a write (`Class::Write`).
    pub(crate) fn write_bus(&mut self, now: Ps, bytes: u32) -> Ps {
        self.datapath.host_bus(now, bytes, Class::Write)
    }
}
