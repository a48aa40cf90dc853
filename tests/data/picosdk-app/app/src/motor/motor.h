#ifndef MOTOR_H
#define MOTOR_H
#include <stdint.h>

void motor_init(int dir);
void motor_step(uint32_t load);
int32_t motor_position(void);
int32_t pid_update(int32_t target, int32_t actual);

#endif
