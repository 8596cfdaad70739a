//! Dragonfly (Kim, Dally, Scott and Abts, ISCA 2008): `g = a·h + 1` groups of `a` routers;
//! the routers of a group are joined all-to-all by local links, each router has `h` global
//! links, and every pair of groups is joined by exactly one global link; `p` endpoints per
//! router.
//!
//! Router `r` is router `i = r % a` of group `r / a`. Ports `0..a-1` are local (port `j` leads
//! to router `j` of the group if `j < i`, else to router `j + 1`); ports `a-1..a-1+h` are
//! global. Global link `m = i·h + k` (port `a - 1 + k`) of group `g` leads to group
//! `(g + m + 1) mod G`, arriving on its global link `G - 2 - m` (the "absolute" arrangement).

use super::Topology;
use crate::config::TopologyKind;

#[derive(Clone, Copy, Debug)]
pub struct Dragonfly {
    pub a: u32,
    pub h: u32,
    pub p: u32,
    pub groups: u32,
}

impl Dragonfly {
    pub fn new(a: u32, h: u32, p: u32) -> Self {
        Self {
            a,
            h,
            p,
            groups: a * h + 1,
        }
    }
    #[inline]
    pub fn group(&self, r: u32) -> u32 {
        r / self.a
    }
    #[inline]
    pub fn index(&self, r: u32) -> u32 {
        r % self.a
    }
    /// Local port of router index `i` leading to router index `j` of its group.
    #[inline]
    pub fn local_port(&self, i: u32, j: u32) -> u32 {
        if j < i {
            j
        } else {
            j - 1
        }
    }
    #[inline]
    pub fn is_global(&self, port: u32) -> bool {
        port + 1 >= self.a
    }
    /// The router of group `g` owning the global link to group `t`, and that link's port.
    #[inline]
    pub fn global_to(&self, g: u32, t: u32) -> (u32, u32) {
        let m = (t + self.groups - g - 1) % self.groups;
        (g * self.a + m / self.h, self.a - 1 + m % self.h)
    }
}

impl Topology for Dragonfly {
    fn kind(&self) -> TopologyKind {
        TopologyKind::Dragonfly
    }
    fn routers(&self) -> u32 {
        self.groups * self.a
    }
    fn network_ports(&self, _r: u32) -> u32 {
        self.a - 1 + self.h
    }
    fn neighbor(&self, r: u32, port: u32) -> Option<(u32, u32)> {
        let (g, i) = (self.group(r), self.index(r));
        if port + 1 < self.a {
            let j = if port < i { port } else { port + 1 };
            Some((g * self.a + j, self.local_port(j, i)))
        } else {
            let m = i * self.h + (port + 1 - self.a);
            let t = (g + m + 1) % self.groups;
            let m2 = self.groups - 2 - m;
            Some((t * self.a + m2 / self.h, self.a - 1 + m2 % self.h))
        }
    }
    fn chip_router(&self, c: u32) -> u32 {
        c / self.p
    }
    fn describe(&self, r: u32) -> String {
        format!(
            "router {r} (group {}, index {})",
            self.group(r),
            self.index(r)
        )
    }
    fn as_dragonfly(&self) -> Option<&Dragonfly> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_global_link_joins_every_pair_of_groups() {
        let d = Dragonfly::new(4, 2, 2);
        assert_eq!(d.routers(), 36);
        let mut pairs = std::collections::HashSet::new();
        for r in 0..d.routers() {
            for port in d.a - 1..d.a - 1 + d.h {
                let (n, _) = d.neighbor(r, port).unwrap();
                let (g, t) = (d.group(r), d.group(n));
                assert_ne!(g, t);
                assert!(pairs.insert((g, t)), "two links {g} -> {t}");
                assert_eq!(d.global_to(g, t), (r, port));
            }
        }
        assert_eq!(pairs.len() as u32, d.groups * (d.groups - 1));
    }
}
