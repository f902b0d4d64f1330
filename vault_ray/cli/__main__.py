"""`python -m vault_ray.cli`: the same as the `vault-ray` command."""

from . import main

main()
