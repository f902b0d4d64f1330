"""The engine: the write path (front, txn, partition, disputes), the host of
partitions, and the reads built on them (views, timeline, explain). Pure of Ray:
the same code runs in-process and inside a shard actor."""
