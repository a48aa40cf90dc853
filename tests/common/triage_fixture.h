/* triage_fixture: a known triage (core/triage.h) built in memory, for the triage panel's
 * tests: findings of every severity (one with a command to try, one with many evidence
 * lines) and rules that were not checked. */
#ifndef XB_TEST_TRIAGE_FIXTURE_H
#define XB_TEST_TRIAGE_FIXTURE_H

#include "../../core/triage.h"

/* The findings, most severe first: severe cache-off (no action), warning capacity
 * (":preset sram 4K"), warning conflicting-sets (":preset colour", 12 evidence lines), note
 * debug-features, info idle-and-interrupts (a summary of 150 characters); not checked:
 * noalloc-reuse, optimisation. reversed: the same findings in another order with other
 * figures (a later triage). Free with triage_free. */
void triage_fixture(xb_triage *t, int reversed);

#endif
