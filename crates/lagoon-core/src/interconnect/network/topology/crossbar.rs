//! A crossbar: one router with a port per endpoint, so every transfer crosses one router.

use super::Topology;
use crate::config::TopologyKind;

#[derive(Clone, Copy, Debug)]
pub struct Crossbar;

impl Topology for Crossbar {
    fn kind(&self) -> TopologyKind {
        TopologyKind::Crossbar
    }
    fn routers(&self) -> u32 {
        1
    }
    fn network_ports(&self, _r: u32) -> u32 {
        0
    }
    fn neighbor(&self, _r: u32, _port: u32) -> Option<(u32, u32)> {
        None
    }
    fn chip_router(&self, _c: u32) -> u32 {
        0
    }
}
