/* devfpe.h: report words in device memory, where device kernels leave what NumPy's loops would
 * report (a GPU raises no status flags the host can see; cuda/codegen.c's kernels classify each
 * element with fpclass.h and OR the findings into a word per instruction).
 *
 * A flush hands out words in order from one device array (zeroed by one fill when the first word
 * of a flush is taken).  A device op's findings reach fperr.c as the word's index in its report
 * (kernels.h's struct cpn_fpreport: dev set, dev_word): fperr.c reads the word at once when the
 * op's error mode raises (a synchronisation, only then), and otherwise after the flush, all words
 * in one copy (cpn_fperr_end_flush), so watched ops cost the device no synchronisation.  Word layout: the
 * status-flag bits (CPN_FPE_*) in bits 0-3, the loops' own findings (integer division) in bits
 * 4-7, bit 8 a value error (an integer raised to a negative power).
 *
 * Used by the device backends (cuda/backend.c; backend_sim.c writes the CPU loops' flags into
 * the words, so pytest runs the whole path).  All functions are Local. */
#ifndef CPN_DEVFPE_H
#define CPN_DEVFPE_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

#define CPN_DEVFPE_WORDS 4096          /* words per flush before an early collection */
#define CPN_DEVFPE_HW_MASK 0xfu
#define CPN_DEVFPE_SW_SHIFT 4
#define CPN_DEVFPE_VALUE 0x100u

/* Reserve n consecutive words (n <= CPN_FUSED_MAXINSTR) for one launch; *first gets the index of
 * the first.  When the flush's words are used up, the findings so far are collected first
 * (cpn_fperr_collect_device: a synchronisation).  Errors: no device memory. */
enum cpn_status cpn_devfpe_take(int n, int *first);
/* The device address of word i. */
uint32_t *cpn_devfpe_word(int i);
/* Copy words [first, first + n) to the host (waits for the device). */
enum cpn_status cpn_devfpe_read(int first, int n, uint32_t *out);
/* Words handed out since the last reset. */
int cpn_devfpe_used(void);
/* Every word free again (after fperr.c collected them). */
void cpn_devfpe_reset(void);

/* Name device word i in report *fp (kernels.h; its host findings stay): what the op's device
 * kernels found is there. */
struct cpn_fpreport;
void cpn_devfpe_report(struct cpn_fpreport *fp, int i);

#endif
