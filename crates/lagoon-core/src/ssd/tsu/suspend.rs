//! Program/erase suspension: the die state machine's preemption point. A read that finds its
//! die in the array phase of a program or erase is where real NAND may suspend the operation,
//! serve the read and resume (issue 35 builds it here). Today no operation is suspended:
//! every hook returns at once, so results are those of a die that always finishes first.

use super::Die;

/// The suspension policy (none yet).
#[derive(Clone, Copy, Debug, Default)]
pub struct Suspend;

impl Suspend {
    /// A dispatch attempt found `die` busy: the point where a waiting read could suspend its
    /// program or erase. Nothing suspends yet.
    #[inline(always)]
    pub fn on_busy_die(&self, _die: &Die) {}
}
