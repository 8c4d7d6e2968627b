# src/codec: sources and tests of this module
