# src/image: sources and tests of this module
