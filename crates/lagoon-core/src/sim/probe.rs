//! Probe runs: flash operations injected straight into the die queues at given times (no host,
//! no mapping lookups), for exact-time tests of the die scheduler, the back ends and the data
//! path. They run through the same [`Simulator::dispatch`] as every run.

use super::{Event, Simulator};
use crate::config::SsdConfig;
use crate::interconnect::Arch;
use crate::ssd::dynamic_superblock::BlockRemap;
use crate::ssd::probe::ProbeOp;
use crate::time::Ps;

/// What a probe run observed besides completion times.
#[derive(Clone, Debug, Default)]
pub struct ProbeExtra {
    /// Destination plane of each GC move, in completion order.
    pub gc_destinations: Vec<u32>,
    /// Every system-bus and DRAM grant (start, end), in grant order.
    pub bus_grants: Vec<(Ps, Ps)>,
    pub dram_grants: Vec<(Ps, Ps)>,
}

impl Simulator {
    /// Inject flash operations at time 0 straight into the die queues (no host, no mapping
    /// lookups) and return each one's completion time in picoseconds, in input order.
    pub fn probe_flash(cfg: &SsdConfig, arch: Arch, ops: &[ProbeOp]) -> Vec<Ps> {
        let timed: Vec<(Ps, ProbeOp)> = ops.iter().map(|&o| (0, o)).collect();
        Self::probe_flash_at(cfg, arch, &timed).0
    }

    /// As [`Self::probe_flash`], each operation injected at its own time; also returns the
    /// simulator's controller counters (with `controller.enabled`) and the plane each
    /// [`ProbeOp::GcMove`] wrote its page to.
    pub fn probe_flash_at(
        cfg: &SsdConfig,
        arch: Arch,
        ops: &[(Ps, ProbeOp)],
    ) -> (Vec<Ps>, ProbeExtra) {
        Self::probe_flash_remapped(cfg, arch, ops, None)
    }

    /// As [`Self::probe_flash_at`] over a block remapping ([`Self::set_block_remap`]).
    pub fn probe_flash_remapped(
        cfg: &SsdConfig,
        arch: Arch,
        ops: &[(Ps, ProbeOp)],
        remap: Option<std::sync::Arc<BlockRemap>>,
    ) -> (Vec<Ps>, ProbeExtra) {
        let mut s = Simulator::new(cfg, arch, Vec::new(), 0);
        if let Some(r) = remap {
            s.set_block_remap(r).expect("remap of the drive's geometry");
        }
        s.ssd.probe.ops = ops.iter().map(|o| o.1).collect();
        s.ssd.datapath.set_audit(true);
        s.ssd.start_status_scan();
        for (i, &(at, _)) in ops.iter().enumerate() {
            if at == 0 {
                s.ssd.probe_inject(0, i);
            } else {
                s.ssd.q.schedule(at, Event::Probe { op: i as u32 });
            }
        }
        // All operations at time 0 are queued before any die picks: multi-plane pairs form.
        for die in 0..s.ssd.tsu.die_count() {
            s.ssd.try_dispatch(0, die);
        }
        while let Some((now, ev)) = s.ssd.q.pop() {
            debug_assert!(
                !matches!(ev, Event::Host(_) | Event::Hil(_)),
                "probe runs have no host events"
            );
            s.dispatch(now, ev);
        }
        let mut out = vec![0; ops.len()];
        for &(i, t) in &s.ssd.probe.done {
            out[i as usize] = t;
        }
        let dp = &mut s.ssd.datapath;
        let extra = ProbeExtra {
            gc_destinations: std::mem::take(&mut s.ssd.probe.gc_dest),
            bus_grants: dp
                .controller()
                .map(|c| c.take_bus_grants())
                .unwrap_or_default(),
            dram_grants: dp.dram.audit.take().unwrap_or_default(),
        };
        (out, extra)
    }

    /// A probe operation's injection time came.
    pub(super) fn probe_event(&mut self, now: Ps, op: u32) {
        self.ssd.probe_inject(now, op as usize);
        let die = self.ssd.probe.die;
        self.ssd.try_dispatch(now, die);
    }
}
