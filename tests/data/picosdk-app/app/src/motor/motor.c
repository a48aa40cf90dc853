/* A stepper motor loop: the application's code in a subfolder of its own. */
#include "pico/stdlib.h"
#include "motor.h"

#define MOTOR_STEP_PIN 2
#define MOTOR_DIR_PIN 3

static int32_t position;
static int32_t target;

void motor_init(int dir)
{
    gpio_init(MOTOR_STEP_PIN);
    gpio_init(MOTOR_DIR_PIN);
    gpio_set_dir(MOTOR_STEP_PIN, GPIO_OUT);
    gpio_set_dir(MOTOR_DIR_PIN, GPIO_OUT);
    gpio_put(MOTOR_DIR_PIN, dir != 0);
}

void motor_step(uint32_t load)
{
    target += (int32_t)(load & 7u);
    int32_t drive = pid_update(target, position);
    if (drive > 0) {
        gpio_put(MOTOR_STEP_PIN, 1);
        busy_wait_us_32(2);
        gpio_put(MOTOR_STEP_PIN, 0);
        position++;
    }
}

int32_t motor_position(void)
{
    return position;
}
