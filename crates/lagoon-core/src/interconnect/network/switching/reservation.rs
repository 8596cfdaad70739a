//! The link-reservation table of the two circuit modes, [`super::circuit`] (a probe sets up
//! the path) and [`super::scout`] (Venice's scouts): per slot, the circuit holding it, since
//! when, and how long it has been held so far. What a slot is belongs to the mode: a link
//! direction (a global output port, the endpoint's ejection port included) for probes, a
//! whole link (both directions, Venice §4.2) for scouts.
//!
//! The table keeps one rule: a slot has at most one holder ([`Reservations::reserve`] takes
//! a free slot, [`Reservations::release`] frees a held one), and [`Reservations::check`]
//! holds the modes' own records of their paths against it. How a path is kept (a stack to
//! backtrack on, a list threaded through the ports), which slots are free as a router sees
//! them, and when a blocked circuit tries again stay with each mode.

use crate::time::Ps;

/// No circuit holds the slot.
pub const FREE: u32 = u32::MAX;

/// One slot: its holder (or [`FREE`]), since when, and its held time so far (one record, so
/// a reservation and its release each touch one cache line).
#[derive(Clone, Copy, Debug)]
struct Slot {
    owner: u32,
    since: Ps,
    busy: Ps,
}

#[derive(Clone, Debug)]
pub struct Reservations {
    slots: Vec<Slot>,
}

impl Reservations {
    /// `slots` free slots, never held.
    pub fn new(slots: usize) -> Self {
        Self {
            slots: vec![
                Slot {
                    owner: FREE,
                    since: 0,
                    busy: 0,
                };
                slots
            ],
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The circuit holding slot `s`, or [`FREE`].
    #[inline(always)]
    pub fn owner(&self, s: usize) -> u32 {
        self.slots[s].owner
    }

    /// Whether slot `s` is held.
    #[inline(always)]
    pub fn is_held(&self, s: usize) -> bool {
        self.slots[s].owner != FREE
    }

    /// Slot `s`, free, becomes `owner`'s at `now`.
    #[inline(always)]
    pub fn reserve(&mut self, s: usize, owner: u32, now: Ps) {
        assert!(s < self.slots.len(), "no slot {s}");
        // SAFETY: checked just above.
        unsafe { self.reserve_unchecked(s, owner, now) }
    }

    /// Slot `s`, held, is free again at `now`; its held time is added to its busy time and
    /// returned.
    #[inline(always)]
    pub fn release(&mut self, s: usize, now: Ps) -> Ps {
        assert!(s < self.slots.len(), "no slot {s}");
        // SAFETY: checked just above.
        unsafe { self.release_unchecked(s, now) }
    }

    /// [`Self::reserve`] without the bounds check, for a hot path that made `s` itself.
    ///
    /// # Safety
    /// `s < self.len()`.
    #[inline(always)]
    pub unsafe fn reserve_unchecked(&mut self, s: usize, owner: u32, now: Ps) {
        debug_assert!(s < self.slots.len());
        // SAFETY: the caller's promise.
        let slot = unsafe { self.slots.get_unchecked_mut(s) };
        debug_assert_eq!(slot.owner, FREE, "slot {s} reserved twice");
        (slot.owner, slot.since) = (owner, now);
    }

    /// [`Self::release`] without the bounds check.
    ///
    /// # Safety
    /// `s < self.len()`.
    #[inline(always)]
    pub unsafe fn release_unchecked(&mut self, s: usize, now: Ps) -> Ps {
        debug_assert!(s < self.slots.len());
        // SAFETY: the caller's promise.
        let slot = unsafe { self.slots.get_unchecked_mut(s) };
        debug_assert_ne!(slot.owner, FREE, "slot {s} released while free");
        slot.owner = FREE;
        let held = now - slot.since;
        slot.busy += held;
        held
    }

    /// Time slot `s` has been held, over its released reservations.
    pub fn busy(&self, s: usize) -> Ps {
        self.slots[s].busy
    }

    /// Slots held now.
    pub fn held(&self) -> usize {
        self.slots.iter().filter(|s| s.owner != FREE).count()
    }

    /// The table against the modes' records of their paths: `paths` gives each holder and
    /// the slots of its path. Every slot of a path is held by its holder, no slot is on two
    /// paths (or twice on one), and no slot is held that is on no path.
    pub fn check<P: IntoIterator<Item = usize>>(
        &self,
        paths: impl IntoIterator<Item = (u32, P)>,
    ) -> Result<(), String> {
        let mut count = vec![0u32; self.slots.len()];
        for (holder, path) in paths {
            for s in path {
                let Some(slot) = self.slots.get(s) else {
                    return Err(format!("slot {s} on {holder}'s path is not in the table"));
                };
                count[s] += 1;
                if slot.owner != holder {
                    return Err(format!(
                        "slot {s} on {holder}'s path is held by {}",
                        if slot.owner == FREE {
                            "no one".to_string()
                        } else {
                            slot.owner.to_string()
                        }
                    ));
                }
            }
        }
        if let Some(s) = count.iter().position(|&n| n > 1) {
            return Err(format!("slot {s} is in {} reservations", count[s]));
        }
        let held = self.held();
        let on_paths: u32 = count.iter().sum();
        if held as u32 != on_paths {
            return Err(format!("{held} slots held but {on_paths} on paths"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_release_adds_the_held_time() {
        let mut t = Reservations::new(3);
        t.reserve(1, 7, 100);
        assert_eq!((t.owner(1), t.is_held(1), t.held()), (7, true, 1));
        assert_eq!(t.release(1, 250), 150);
        t.reserve(1, 8, 300);
        assert_eq!(t.release(1, 310), 10);
        assert_eq!(
            (t.owner(1), t.busy(1), t.busy(0), t.held()),
            (FREE, 160, 0, 0)
        );
    }

    #[test]
    fn check_finds_every_broken_rule() {
        let mut t = Reservations::new(4);
        t.reserve(0, 1, 0);
        t.reserve(2, 1, 0);
        t.reserve(3, 2, 0);
        assert_eq!(t.check([(1, vec![0, 2]), (2, vec![3])]), Ok(()));
        // A slot on two paths (held by the first).
        let e = t.check([(1, vec![0, 2]), (2, vec![3, 0])]).unwrap_err();
        assert!(e.contains("slot 0 on 2's path is held by 1"), "{e}");
        // Twice on one path.
        let e = t.check([(1, vec![0, 2, 0]), (2, vec![3])]).unwrap_err();
        assert!(e.contains("slot 0 is in 2 reservations"), "{e}");
        // Held, but on no path (a leaked reservation).
        let e = t.check([(1, vec![0, 2])]).unwrap_err();
        assert!(e.contains("3 slots held but 2 on paths"), "{e}");
        // On a path, held by no one.
        let e = t.check([(1, vec![0, 2, 1]), (2, vec![3])]).unwrap_err();
        assert!(e.contains("held by no one"), "{e}");
    }

    #[test]
    #[should_panic(expected = "no slot 4")]
    fn a_slot_outside_the_table_is_refused() {
        Reservations::new(4).reserve(4, 0, 0);
    }

    proptest! {
        /// Holders that reserve only free slots and release only their own keep the table
        /// consistent with their paths, and each slot's busy time is the sum of its holds.
        #[test]
        fn no_slot_is_ever_held_twice(ops in proptest::collection::vec((0u32..4, 0usize..12, any::<bool>()), 1..300)) {
            let mut t = Reservations::new(12);
            let mut paths: Vec<Vec<usize>> = vec![Vec::new(); 4];
            let mut busy = [0 as Ps; 12];
            let mut since = [0 as Ps; 12];
            for (now, &(h, s, take)) in ops.iter().enumerate() {
                let now = now as Ps * 10;
                if take && !t.is_held(s) {
                    t.reserve(s, h, now);
                    paths[h as usize].push(s);
                    since[s] = now;
                } else if let Some(k) = paths[h as usize].iter().position(|&x| x == s) {
                    paths[h as usize].swap_remove(k);
                    prop_assert_eq!(t.release(s, now), now - since[s]);
                    busy[s] += now - since[s];
                }
                prop_assert_eq!(t.check(paths.iter().enumerate().map(|(h, p)| (h as u32, p.iter().copied()))), Ok(()));
            }
            for (s, &b) in busy.iter().enumerate() {
                prop_assert_eq!(t.busy(s), b);
            }
        }
    }
}
