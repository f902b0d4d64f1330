#!/usr/bin/env bash
# A two-node Ray cluster on one machine, serving one vault-ray store.
#
# An example of the steps a real multi-node deployment takes (head, workers, the
# store on a path every node can reach, shards placed by a custom resource); it
# starts real processes, so run it only where that is fine. Stop it with
# `./local_multinode.sh down`.
#
#   ./local_multinode.sh up [STORE] [SHARDS]     default STORE=/tmp/vault-ray-store SHARDS=4
#   ./local_multinode.sh down
set -euo pipefail

PORT=${VAULT_RAY_PORT:-6390}
HEAD_TMP=${VAULT_RAY_TMP:-/tmp/vr-head}      # short: Ray's socket paths have a length limit
ADDRESS=127.0.0.1:$PORT
NAMESPACE=${VAULT_RAY_NAMESPACE:-vault}
BIN=${VAULT_RAY_BIN:-$(dirname "$(command -v vault-ray)")}

case "${1:-up}" in
up)
  STORE=${2:-/tmp/vault-ray-store}
  SHARDS=${3:-4}
  # Head node: no shards here (no vault_store); it runs the GCS.
  "$BIN/ray" start --head --port "$PORT" --node-ip-address 127.0.0.1 --num-cpus 1 \
      --include-dashboard=false --disable-usage-stats --temp-dir "$HEAD_TMP"
  # A worker node. On a real cluster this runs on another machine, with STORE on a
  # shared filesystem (NFS, EFS, a ReadWriteMany volume) mounted at the same path.
  "$BIN/ray" start --address "$ADDRESS" --num-cpus 1 --resources '{"vault_store": 100}' \
      --disable-usage-stats
  # The store's actors (control and shards) only on nodes that offer `vault_store` (they mount the store).
  "$BIN/vault-ray" up --address "$ADDRESS" --namespace "$NAMESPACE" --store "$STORE" --shards "$SHARDS" \
      --actor-options '{"resources": {"vault_store": 1}}'
  echo "join: vault-ray chat --agent NAME --address $ADDRESS --namespace $NAMESPACE"
  ;;
down)
  "$BIN/vault-ray" down --address "$ADDRESS" --namespace "$NAMESPACE" || true
  # `ray stop` stops every Ray process of this user on this machine (both nodes here).
  "$BIN/ray" stop
  ;;
*)
  echo "usage: $0 up [STORE] [SHARDS] | down" >&2
  exit 2
  ;;
esac
