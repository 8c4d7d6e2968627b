# src/progress: sources and tests of this module
