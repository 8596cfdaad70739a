//! Dragonfly routing (Kim et al., ISCA 2008): minimal (local, global, local), Valiant's
//! randomised routing through an intermediate group, and UGAL-L, which picks minimal or
//! Valiant at the source router by comparing queue length × hop count of the first hop.
//!
//! VC class = global links taken so far: a packet's local hops before its first global link
//! use class 0, between the first and second class 1, after the second class 2. Within a class
//! a packet takes at most one local link and then a global one (Valiant routes to the
//! intermediate *group*, not router, so it crosses that group with one local hop), so every
//! class's channel dependencies are local → global only and the classes only increase:
//! deadlock-free with 2 classes (minimal) or 3 (Valiant, UGAL).

use super::{class_mask, Candidate, LoadView, RouteState, Routing};
use crate::engine::NONE;
use crate::interconnect::network::topology::dragonfly::Dragonfly;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Minimal,
    Valiant,
    Ugal,
}

const TO_INTER: u8 = 0;
const TO_DEST: u8 = 1;
const UNDECIDED: u8 = 2;

pub struct DragonflyRouting {
    d: Dragonfly,
    mode: Mode,
    masks: [u64; 3],
}

impl DragonflyRouting {
    pub fn new(d: Dragonfly, mode: Mode, vcs: u32, classes: u32) -> Self {
        Self {
            d,
            mode,
            masks: [0, 1, 2].map(|c| class_mask(vcs, classes, c.min(classes - 1))),
        }
    }

    /// The minimal next port from `r` towards group `t` (and router `dest` once in it).
    #[inline]
    fn toward(&self, r: u32, t: u32, dest: u32) -> u32 {
        let d = &self.d;
        let (g, i) = (d.group(r), d.index(r));
        if g == t {
            return d.local_port(i, d.index(dest));
        }
        let (owner, port) = d.global_to(g, t);
        if owner == r {
            port
        } else {
            d.local_port(i, d.index(owner))
        }
    }

    /// Router-to-router hops of the minimal route from `r` to router `dest`.
    fn min_hops(&self, r: u32, dest: u32) -> u32 {
        let d = &self.d;
        let (g, t) = (d.group(r), d.group(dest));
        if g == t {
            return (r != dest) as u32;
        }
        let (owner, port) = d.global_to(g, t);
        let arrive = d.neighbor_of(owner, port);
        (owner != r) as u32 + 1 + (arrive != dest) as u32
    }
}

impl Dragonfly {
    fn neighbor_of(&self, r: u32, port: u32) -> u32 {
        use crate::interconnect::network::topology::Topology;
        self.neighbor(r, port)
            .expect("dragonfly ports are connected")
            .0
    }
}

impl Routing for DragonflyRouting {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Minimal => "minimal-adaptive",
            Mode::Valiant => "valiant",
            Mode::Ugal => "ugal",
        }
    }

    fn init(&self, src: u32, dest: u32, rand: u32) -> RouteState {
        let d = &self.d;
        let (gs, gd) = (d.group(src), d.group(dest));
        let minimal = RouteState {
            dest,
            inter: NONE,
            phase: TO_DEST,
            globals: 0,
        };
        if self.mode == Mode::Minimal || gs == gd || d.groups < 3 {
            return minimal;
        }
        // A random group other than the source's and the destination's.
        let mut inter = rand % (d.groups - 2);
        for g in [gs.min(gd), gs.max(gd)] {
            if inter >= g {
                inter += 1;
            }
        }
        RouteState {
            inter,
            phase: if self.mode == Mode::Ugal {
                UNDECIDED
            } else {
                TO_INTER
            },
            ..minimal
        }
    }

    fn route(&self, r: u32, st: &RouteState, view: &dyn LoadView, out: &mut Vec<Candidate>) {
        let d = &self.d;
        let mut st = *st;
        if st.phase == UNDECIDED {
            // UGAL-L: queue length × hops of the minimal and the Valiant path's first hops.
            let pm = self.toward(r, d.group(st.dest), st.dest);
            let pv = self.toward(r, st.inter, st.dest);
            let (_, pv_owner) = d.global_to(d.group(r), st.inter);
            let _ = pv_owner;
            let hm = self.min_hops(r, st.dest) as u64;
            let via = {
                let (owner, port) = d.global_to(d.group(r), st.inter);
                let arrive = d.neighbor_of(owner, port);
                (owner != r) as u64 + 1 + self.min_hops(arrive, st.dest) as u64
            };
            let (qm, qv) = (view.port_load(r, pm) as u64, view.port_load(r, pv) as u64);
            st.phase = if qm * hm <= qv * via {
                TO_DEST
            } else {
                TO_INTER
            };
        }
        if st.phase == TO_INTER && d.group(r) == st.inter {
            st.phase = TO_DEST;
        }
        let port = if st.phase == TO_INTER {
            self.toward(r, st.inter, st.dest)
        } else {
            self.toward(r, d.group(st.dest), st.dest)
        };
        let mut next = st;
        if d.is_global(port) {
            next.globals += 1;
        }
        out.push(Candidate::hop(
            port,
            self.masks[st.globals.min(2) as usize],
            next,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::walk;
    use super::*;

    #[test]
    fn minimal_is_local_global_local_and_valiant_visits_its_group() {
        let d = Dragonfly::new(4, 2, 2);
        let min = DragonflyRouting::new(d, Mode::Minimal, 2, 2);
        for (s, t) in [(0, 35), (5, 6), (13, 30)] {
            let path = walk(&min, &d, s, t, 0);
            let globals = path.iter().filter(|h| d.is_global(h.1)).count();
            assert_eq!(globals, (d.group(s) != d.group(t)) as usize, "{s}->{t}");
            assert!(path.len() <= 3);
        }
        let val = DragonflyRouting::new(d, Mode::Valiant, 3, 3);
        for rand in 0..20 {
            let st = val.init(0, 35, rand);
            assert!(st.inter != 0 && st.inter != 8 && st.inter < 9);
            let path = walk(&val, &d, 0, 35, rand);
            let groups: Vec<u32> = path.iter().map(|h| d.group(h.0)).collect();
            assert!(groups.contains(&st.inter), "{groups:?} via {}", st.inter);
            assert_eq!(path.iter().filter(|h| d.is_global(h.1)).count(), 2);
        }
    }

    /// UGAL goes minimal on an idle network and through Valiant's group when the minimal
    /// port is loaded.
    #[test]
    fn ugal_leaves_a_loaded_minimal_port() {
        struct Loaded(u32);
        impl LoadView for Loaded {
            fn port_load(&self, _r: u32, port: u32) -> u32 {
                if port == self.0 {
                    100
                } else {
                    0
                }
            }
        }
        let d = Dragonfly::new(4, 2, 2);
        let ugal = DragonflyRouting::new(d, Mode::Ugal, 3, 3);
        let st = ugal.init(0, 35, 3);
        let mut out = Vec::new();
        ugal.route(0, &st, &super::super::NoLoad, &mut out);
        assert_eq!(out[0].next.phase, TO_DEST);
        let minimal_port = out[0].port;
        out.clear();
        ugal.route(0, &st, &Loaded(minimal_port), &mut out);
        assert_eq!(out[0].next.phase, TO_INTER);
        assert_ne!(out[0].port, minimal_port);
    }
}
