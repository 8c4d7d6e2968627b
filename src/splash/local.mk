# src/splash: sources and tests of this module
