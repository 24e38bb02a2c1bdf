// Compiled by tests/install/add_subdirectory/CMakeLists.txt with the
// application's own CMAKE_CXX_STANDARD (17): adding kiln must not change it.
static_assert(__cplusplus == 201703L, "the application's own targets must stay C++17");

int main() { return 0; }
