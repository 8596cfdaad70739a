//! A custom topology read from a small TOML file (`config::network::CustomTopology`):
//! routers, undirected links and where chips and controllers attach. A router's ports are
//! its links in the order the file lists them.

use super::Topology;
use crate::config::network::CustomTopology;
use crate::config::{ControllerAttach, TopologyKind};

#[derive(Clone, Debug)]
pub struct Custom {
    file: CustomTopology,
    /// `adj[r][p]` = (neighbour, its port back to `r`).
    adj: Vec<Vec<(u32, u32)>>,
}

impl Custom {
    pub fn new(file: CustomTopology) -> Self {
        let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); file.routers as usize];
        for &[a, b] in &file.links {
            let (pa, pb) = (adj[a as usize].len() as u32, adj[b as usize].len() as u32);
            adj[a as usize].push((b, pb));
            adj[b as usize].push((a, pa));
        }
        Self { file, adj }
    }
}

impl Topology for Custom {
    fn kind(&self) -> TopologyKind {
        TopologyKind::Custom
    }
    fn routers(&self) -> u32 {
        self.file.routers
    }
    fn network_ports(&self, r: u32) -> u32 {
        self.adj[r as usize].len() as u32
    }
    fn neighbor(&self, r: u32, port: u32) -> Option<(u32, u32)> {
        self.adj[r as usize].get(port as usize).copied()
    }
    fn chip_router(&self, c: u32) -> u32 {
        match self.file.chips.get(c as usize) {
            Some(&r) => r,
            None => c % self.file.routers,
        }
    }
    fn controller_router(&self, i: u32, n: u32, _mode: ControllerAttach) -> u32 {
        match self.file.controllers.get(i as usize) {
            Some(&r) => r,
            None => (i as u64 * self.file.routers as u64 / n.max(1) as u64) as u32,
        }
    }
}
