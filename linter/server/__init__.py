"""`kqlint server`: the language server over the same pipeline.

The language server (`kqlint server`): workspace (the engine side, no LSP), positions
(kqlint to LSP), protocol (pygls), transport (the wire held to the LSP spec, bounded)."""
