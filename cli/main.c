/* xipbench: the program. Everything lives in the libraries. */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
