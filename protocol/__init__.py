"""The peer: discovery, transport, relay and persistence (drives the core; holds no rules)."""
