//! Switching: how a message crosses the routers once routing has named the ports.
//!
//! ```text
//!  packet/         flits through buffers: store-and-forward, virtual cut-through, wormhole
//!                  (the routers of ../router.rs; flit times as runs, packet/runs.rs)
//!  circuit.rs      a probe reserves a path for a message; blocked: cancel, release, back off
//!                  at random, re-send; an ack returns, then the data streams
//!  scout/          Venice's scouts (§4): a scout reserves a controller's path with
//!                  Algorithm 1 (../routing/venice.rs); blocked: backtrack one router and try
//!                  another port; home in cancel mode: re-send; then the transfer (Eq. 1)
//!  reservation.rs  the link-reservation table both circuit modes keep
//! ```
//!
//! The two circuit modes share the reservation table and the topology (the scouts see the
//! layer's 2D mesh through [`super::topology::mesh2d`]). Their timing, their retry rule and
//! their random draws stay their own: a probe costs a link time per link back and waits a
//! random back-off drawn from the network's generator; a scout costs a router delay and its
//! flits per hop, returns one router at a time, and draws from a 16-bit LFSR per router
//! (Venice §4.2's hardware). Merging either into the other would move every result of the
//! mode that changed. The scouts also run on the engine's own queue, under sequence numbers
//! reserved from it (so equal times order as they always have), rather than on the
//! [`super::Network`]'s queue, which packets and probes share.
//!
//! [`Mode::of`] says which mode a `[network]` section selects.

pub mod circuit;
pub mod packet;
pub mod reservation;
pub mod scout;

use crate::config::{NetworkConfig, RoutingKind, Switching};

/// The switching mode of a `[network]` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `switching = saf | vct | wormhole`: [`packet`].
    Packet,
    /// `switching = circuit` with a packet routing: probes ([`circuit`]).
    Circuit,
    /// `switching = circuit` with `routing = venice`: Venice's scouts ([`scout`]).
    Scout,
}

impl Mode {
    pub fn of(n: &NetworkConfig) -> Self {
        Self::of_keys(n.switching, n.routing)
    }

    /// The mode of `network.switching` and `network.routing`.
    pub fn of_keys(switching: Switching, routing: RoutingKind) -> Self {
        match (switching, routing) {
            (Switching::Circuit, RoutingKind::Venice) => Mode::Scout,
            (Switching::Circuit, _) => Mode::Circuit,
            _ => Mode::Packet,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SsdConfig;

    #[test]
    fn venice_routing_on_circuits_is_the_scout_mode() {
        let mut c = SsdConfig::default();
        assert_eq!(Mode::of(&c.network), Mode::Packet);
        c.network.switching = Switching::Circuit;
        assert_eq!(Mode::of(&c.network), Mode::Circuit);
        c.network.routing = RoutingKind::Venice;
        assert_eq!(Mode::of(&c.network), Mode::Scout);
    }
}
