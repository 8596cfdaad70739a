//! The scheduler's own rules on the tiny drive (planes 0 and 1 form die 0): which queued
//! transactions an idle die starts together.

use super::*;
use crate::engine::EventQueue;
use crate::interconnect::Arch;
use crate::interconnect::IcEvent;
use crate::ssd::datapath::DataPathEvent;
use crate::ssd::hil::HilEvent;

/// The drive's sub-events, for a drive run without the simulator around it.
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)]
enum Event {
    Hil(HilEvent),
    Tsu(TsuEvent),
    DataPath(DataPathEvent),
    Ic(IcEvent),
}

macro_rules! wrap {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Event {
            fn from(e: $t) -> Self {
                Event::$v(e)
            }
        }
    )*};
}

wrap!(HilEvent => Hil, TsuEvent => Tsu, DataPathEvent => DataPath, IcEvent => Ic);

fn drive(f: impl FnOnce(&mut SsdConfig)) -> Ssd<EventQueue<Event>> {
    let mut c = crate::testing::tiny();
    f(&mut c);
    Ssd::new(&c, Arch::Baseline, 1, 1, EventQueue::new())
}

/// Queue a user read of page `page` of block `block` on `plane` (not dispatched).
fn read(s: &mut Ssd<EventQueue<Event>>, plane: u32, block: u32, page: u32) -> u32 {
    let ppa = s.ftl.geo.ppa(plane, block, page);
    let t = s.alloc_txn(TxnKind::UserRead, Role::Drive, 0, ppa, plane, 4096);
    s.queue_on_die(0, t, DieQueue::Read);
    t
}

#[test]
fn a_read_pairs_only_with_a_read_at_its_offset_on_the_other_plane() {
    let mut s = drive(|_| {});
    let a = read(&mut s, 0, 3, 5);
    let _b = read(&mut s, 1, 7, 6); // the other plane, another offset: not a partner
    let c = read(&mut s, 1, 2, 5); // the other plane, the same offset
    s.try_dispatch(0, 0);
    assert_eq!(s.tsu.dies()[0].current(), &[a, c]);
    assert_eq!(s.tsu.dies()[0].phase, Phase::Command);
    assert_eq!((s.flash.read_commands, s.flash.multiplane_commands), (1, 1));
    assert_eq!(s.flash.page_reads, 2);
}

#[test]
fn any_offset_pairs_the_first_read_of_the_other_plane() {
    let mut s = drive(|c| c.flash.multiplane = Multiplane::Any);
    let a = read(&mut s, 0, 3, 5);
    let b = read(&mut s, 1, 7, 6);
    let _c = read(&mut s, 1, 2, 5);
    s.try_dispatch(0, 0);
    assert_eq!(s.tsu.dies()[0].current(), &[a, b]);
}

#[test]
fn without_multiplane_a_die_starts_one_page() {
    let mut s = drive(|c| c.flash.multiplane = Multiplane::Off);
    let a = read(&mut s, 0, 3, 5);
    read(&mut s, 1, 2, 5);
    s.try_dispatch(0, 0);
    assert_eq!(s.tsu.dies()[0].current(), &[a]);
    assert_eq!(s.flash.multiplane_commands, 0);
}

#[test]
fn a_busy_die_starts_nothing_and_an_idle_one_takes_reads_before_gc() {
    let mut s = drive(|c| c.ftl.gc_preemptible = true);
    // A status-scan read (background queue) and a user read on plane 0.
    let ppa = s.ftl.geo.ppa(0, 1, 0);
    let scan = s.alloc_txn(TxnKind::ScanRead, Role::Drive, 0, ppa, 0, 4096);
    s.queue_on_die(0, scan, DieQueue::GcRead);
    let user = read(&mut s, 0, 4, 2);
    s.try_dispatch(0, 0);
    assert_eq!(
        s.tsu.dies()[0].current(),
        &[user],
        "user I/O first (preemptible GC)"
    );
    s.try_dispatch(0, 0);
    assert_eq!(
        s.tsu.dies()[0].current(),
        &[user],
        "busy: nothing more starts"
    );
}

#[test]
fn in_order_dies_start_only_the_head() {
    let mut s = drive(|c| c.ftl.die_scheduling = crate::config::DieScheduling::Fifo);
    let a = read(&mut s, 0, 3, 5);
    let b = read(&mut s, 1, 2, 5);
    s.try_dispatch(0, 0);
    // The head and a same-kind partner behind it at its offset; nothing overtakes the head.
    assert_eq!(s.tsu.dies()[0].current(), &[a, b]);
    let mut s = drive(|c| c.ftl.die_scheduling = crate::config::DieScheduling::Fifo);
    let lpa = 7;
    let w = s.alloc_txn(
        TxnKind::UserWrite,
        Role::Destage { sectors: 0 },
        lpa,
        NONE,
        0,
        4096,
    );
    s.enqueue(0, w, DieQueue::Write); // joins the read queue, and starts at once on the idle die
    assert_eq!(s.tsu.dies()[0].current(), &[w]);
}
