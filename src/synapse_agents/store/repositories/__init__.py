"""One repository per aggregate: the reads and writes of its tables, and its table declarations."""
