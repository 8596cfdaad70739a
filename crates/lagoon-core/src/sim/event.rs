//! The engine's event: one small `Copy` sub-event per owner, each defined by the component
//! that handles it, inside a 16-byte value ordered by (time, sequence) in the queue.
//! Components schedule their own sub-event (`crate::engine::Queue<T>`); the conversions below
//! wrap it at the same call, so sequence numbers are those a direct call would take.

use crate::host::flows::HostEvent;
use crate::interconnect::IcEvent;
use crate::ssd::datapath::DataPathEvent;
use crate::ssd::hil::HilEvent;
use crate::ssd::tsu::TsuEvent;

/// Everything that can happen. A 64-bit tag and an 8-byte payload, so it moves as two whole
/// words: at 12 bytes, align 4, it was copied as overlapping pieces that stalled store
/// forwarding in the event loop.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Event {
    /// Host flows (`crate::host::flows`).
    Host(HostEvent),
    /// NVMe fetch, DRAM movements of a request, completion (`crate::ssd::hil`).
    Hil(HilEvent),
    /// The die state machine (`crate::ssd::tsu`).
    Tsu(TsuEvent),
    /// The controller's data path (`crate::ssd::datapath`).
    DataPath(DataPathEvent),
    /// The back end's report or internal event (`crate::interconnect`).
    Ic(IcEvent),
    /// A probe operation is injected (timing tests, `super::probe`).
    Probe { op: u32 },
    /// A live run's horizon ([`super::Simulator::advance_to`]): nothing happens, but back
    /// ends that look ahead through their own events stop before it, as they stop before a
    /// timed arrival.
    Horizon,
}

macro_rules! wrap {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Event {
            #[inline(always)]
            fn from(e: $t) -> Self {
                Event::$v(e)
            }
        }
    )*};
}

wrap!(HostEvent => Host, HilEvent => Hil, TsuEvent => Tsu, DataPathEvent => DataPath, IcEvent => Ic);

#[cfg(test)]
mod tests {
    /// The engine event moves as two whole words (see [`super::Event`]); every sub-event fits
    /// the payload.
    #[test]
    fn the_event_is_sixteen_bytes() {
        use std::mem::{align_of, size_of};
        assert_eq!(size_of::<super::Event>(), 16);
        assert_eq!(align_of::<super::Event>(), 8);
        assert!(size_of::<crate::interconnect::IcEvent>() <= 8);
        assert!(size_of::<super::HilEvent>() <= 8);
        assert!(size_of::<super::DataPathEvent>() <= 8);
    }
}
