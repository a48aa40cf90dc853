/* Functions that share a name in two objects, and one whose input section has a name no
 * linker script rule can hold (a question mark, which GNU ld reads as a pattern). */
int lib_hot(int x);
int lib_warm(int x);
__attribute__((noinline, section(".text.odd?name"))) int odd(int x) { return x + 7; }
volatile int sink;
void reset(void);
__attribute__((section(".vectors"), used)) const void *const vectors[2] = {
	(void *)0x20001000, (const void *)reset};
int main(void)
{
	for (int i = 0;; i++)
		sink = lib_hot(i) + lib_warm(i) + odd(i);
}
void reset(void) { main(); }
