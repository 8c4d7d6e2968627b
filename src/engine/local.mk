# src/engine: sources and tests of this module
