/* Code of an archive kept in a folder whose name holds a space: only the archive's base
 * name enters a linker script rule, so its functions can move. */
__attribute__((noinline)) int lib_hot(int x) { return x * 3 + 1; }
__attribute__((noinline)) int lib_warm(int x) { return x ^ 0x55; }
