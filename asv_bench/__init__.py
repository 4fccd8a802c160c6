"""spadegym's headline figures as airspeed velocity (asv) benchmarks; see docs/benchmarks.md."""
