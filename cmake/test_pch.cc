// The translation unit that builds the tests' precompiled header
// (cmake/PtoTesting.cmake); it has no code of its own.
