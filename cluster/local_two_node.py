"""A two-node Ray cluster on this machine, on 127.0.0.1 only, for tests and benchmarks.

    python cluster/local_two_node.py TMPDIR READY_FILE [--cpus 1] [--object-store-mb 128]

Starts a head node and one worker node with `ray.cluster_utils.Cluster` (which keeps
127.0.0.1 as given: `ray start --node-ip-address 127.0.0.1` rewrites the loopback address
to the machine's routable IP, where a GCS bound to 127.0.0.1 does not listen), writes the
GCS address to READY_FILE, and removes both nodes on SIGTERM. A driver joining it with
`ray.init(address=...)` needs RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 in its environment for
the same reason. Keep TMPDIR short: Ray's socket paths must stay under ~107 characters.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import time


def free_ports(n: int) -> list[int]:
    """`n` different free ports: the sockets stay bound until all are taken (two calls that
    each bind and close may get the same port back, and Ray refuses a port given twice)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def local_cluster_auth() -> None:
    """Token authentication, as `ray.init()` and `ray start` set up a new local cluster (Ray 2.60:
    RAY_AUTH_MODE=token unless the environment says otherwise, a token made if none is saved).
    `Cluster` alone does not, and a driver on this machine sends its saved token to a head on
    127.0.0.1 (as vault-ray's CLI does): a cluster without it would refuse the driver's objects."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            enable_token_auth_by_default,
            ensure_token_if_auth_enabled,
        )
    except ImportError:  # a Ray without token authentication
        return
    if enable_token_auth_by_default():
        ensure_token_if_auth_enabled()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tmp")
    parser.add_argument("ready")
    parser.add_argument("--cpus", type=int, default=1, help="CPUs per node")
    parser.add_argument("--object-store-mb", type=int, default=128, help="object store per node")
    args = parser.parse_args()

    from ray.cluster_utils import Cluster

    local_cluster_auth()

    os.makedirs(os.path.join(args.tmp, "ray"), exist_ok=True)  # where Cluster writes ray_current_cluster
    node = {"num_cpus": args.cpus, "num_gpus": 0, "object_store_memory": args.object_store_mb * 1024 * 1024,
            "node_ip_address": "127.0.0.1", "temp_dir": args.tmp, "include_dashboard": False}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    dashboard, agent = free_ports(2)
    cluster = Cluster(initialize_head=True, head_node_args={**node, "dashboard_port": dashboard,
                                                            "dashboard_agent_listen_port": agent})
    try:
        cluster.add_node(**node)
        with open(args.ready + ".tmp", "w") as f:
            f.write(cluster.address)
        os.replace(args.ready + ".tmp", args.ready)
        while True:
            time.sleep(1)
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
