/* The motor's PID loop. */
#include "motor.h"

static int32_t integral, last_error;

int32_t pid_update(int32_t target, int32_t actual)
{
    int32_t error = target - actual;
    integral += error;
    int32_t derivative = error - last_error;
    last_error = error;
    return 8 * error + integral / 4 + 2 * derivative;
}
