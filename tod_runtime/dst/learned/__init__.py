"""The learned carry-over model of the rules tracker: which value of another frame (or told by
the system in another service) a frame that opens takes along (docs/learned.md)."""
