"""What manifests mean: objects, kinds, references, workloads, Kueue and the platform."""
