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
use super::txn::Request;
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
    pub(crate) fn page_of(&self, r: &Request, page_index: u64) -> (u64, u64) {
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

impl Hil {
    /// A host request of flow `f`: its offset in the flow's share of the logical space (the
    /// flow-relative address, wrapped into it).
    #[inline]
    pub fn offset_in_namespace(&self, f: usize, r: &IoRequest) -> u64 {
        let page = self.page_bytes;
        let fl = &self.queues[f];
        let first_lpa = r.offset_bytes / page;
        (first_lpa % fl.lpa_span) * page + r.offset_bytes % page
    }

    /// The first logical pages (at most 4: most requests) a request of flow `f` at `offset`
    /// of `size` bytes addresses: what translation will look up once it is fetched.
    #[inline]
    pub fn first_lpas(&self, f: usize, offset: u64, size: u32) -> impl Iterator<Item = u64> {
        let page = self.page_bytes;
        let (base, span) = (self.queues[f].lpa_base, self.queues[f].lpa_span);
        let pages = (offset % page + size.max(1) as u64).div_ceil(page);
        (0..pages.min(4)).map(move |k| base + (offset / page + k) % span)
    }

    /// Request `r` of flow `f`, arrived at `arrival`, submitted `now`, at `offset` in its
    /// namespace: a new request of the drive.
    #[inline]
    pub fn alloc(&mut self, now: Ps, f: usize, arrival: Ps, offset: u64, r: &IoRequest) -> u32 {
        self.reqs.alloc(Request {
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

    /// The next submission queue entry the controller fetches (round robin over flows, while
    /// it has room): the request and when the entry (and a write's data) is in the controller.
    #[inline]
    pub fn next_fetch(&mut self, now: Ps) -> Option<(u32, Ps)> {
        let n = self.queues.len();
        if self.in_device >= self.fetch_size {
            return None;
        }
        let f = (0..n)
            .map(|k| (self.rr_flow + k) % n)
            .find(|&f| self.queues[f].sq.head != NONE)?;
        self.rr_flow = (f + 1) % n;
        let id = self.queues[f].sq.pop_front(self.reqs.items());
        self.in_device += 1;
        let r = self.reqs[id];
        let mut t = self.pcie.to_device(now, self.sqe_bytes);
        if !r.is_read {
            t = self.pcie.to_device(t, r.size);
        }
        Some((id, t))
    }

    /// Request `id` was fetched: it is split into pages (all pending); its record and its
    /// first and last page indices.
    #[inline]
    pub fn split(&mut self, id: u32) -> (Request, u64, u64) {
        let r = self.reqs[id];
        let page = self.page_bytes;
        let first = r.offset / page;
        let last = (r.offset + r.size as u64 - 1) / page;
        self.reqs[id].pending = (last - first + 1) as u32;
        (r, first, last)
    }

    /// Pages a DRAM movement in flight for request `id` completes.
    #[inline]
    pub fn dram_pages(&self, id: u32) -> u32 {
        self.reqs[id].dram_pages
    }

    /// `pages` of request `id` are done: if they were its last, whether it is a read and its
    /// size (its data and completion entry go to the host).
    #[inline]
    pub fn pages_done(&mut self, id: u32, pages: u32) -> Option<(bool, u32)> {
        let r = &mut self.reqs[id];
        debug_assert!(r.pending >= pages);
        r.pending -= pages;
        (r.pending == 0).then_some((r.is_read, r.size))
    }

    /// A finished request's data (`data_bytes`, 0 for a write) and then its completion entry
    /// go to the host over PCIe from `t`: when the entry arrives.
    #[inline]
    pub fn to_host(&mut self, t: Ps, data_bytes: Option<u32>) -> Ps {
        let mut t = t;
        if let Some(b) = data_bytes {
            t = self.pcie.to_host(t, b);
        }
        self.pcie.to_host(t, self.cqe_bytes)
    }

    /// Request `id`'s completion entry reached the host: it leaves the drive (its record is
    /// returned for the host's statistics).
    #[inline]
    pub fn retire(&mut self, id: u32) -> Request {
        let r = self.reqs[id];
        assert!(
            r.live && r.pending == 0,
            "request {id} completed twice or early"
        );
        self.queues[r.flow as usize].outstanding -= 1;
        self.in_device -= 1;
        self.reqs[id].live = false;
        self.reqs.free(id);
        r
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
