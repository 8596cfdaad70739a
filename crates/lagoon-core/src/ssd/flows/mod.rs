//! The drive's flows: the code that hands work from one stage to the next, written top to
//! bottom in the order the hardware does it. A stage (`hil`, `cache`, `ftl`, `tsu`,
//! `datapath`) owns its state and returns decisions; a flow applies them, schedules the
//! events they ask for and counts what the drive reports, at the same points as before (so
//! same-time events keep their sequence numbers).
//!
//! - [`request`]: a host request through the host interface: admission, fetch, pages,
//!   completion.
//! - [`read`]: a host read's pages: cache hits, and reads after translation.
//! - [`write`]: a host write through the write buffer, its destages, their translation into
//!   programs (read-modify-write included) and the programs' end.
//! - [`map`]: address translation: CMT lookups, translation page reads and write-backs.
//! - [`gc`]: garbage collection and static wear levelling: victims' moves and erases.
//! - [`suspend`]: program/erase suspension for reads (the die scheduler's preemption point).

pub mod gc;
pub mod map;
pub mod read;
pub mod request;
pub mod suspend;
pub mod write;
