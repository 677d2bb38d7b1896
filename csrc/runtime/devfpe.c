/* devfpe.c: the device report words (see devfpe.h).  One array per process, allocated from the
 * active backend on first use and kept for the process's life: taken with the backend's
 * raw_alloc, outside the pool and its accounting, like the runtime's own state rather than an
 * array's buffer. */
#include "devfpe.h"

#include "backend.h"
#include "fperr.h"
#include "kernels.h"

static uint32_t *words;   /* device memory: CPN_DEVFPE_WORDS words */
static int used;

enum cpn_status cpn_devfpe_take(int n, int *first)
{
    const struct cpn_backend_i *be = cpn_backend_active();
    if (n <= 0 || n > CPN_DEVFPE_WORDS) return cpn_error(CPN_ERR_INTERNAL, "cupynum: bad report word count");
    if (!words) {
        words = be->raw_alloc(CPN_DEVFPE_WORDS * sizeof *words);
        if (!words) return cpn_error(CPN_ERR_NOMEM, "cupynum: no device memory for report words");
    }
    if (used + n > CPN_DEVFPE_WORDS) CPN_TRY(cpn_fperr_collect_device());   /* resets `used` */
    if (used == 0) CPN_TRY(be->fill_zero(words, CPN_DEVFPE_WORDS * sizeof *words));
    *first = used;
    used += n;
    return CPN_OK;
}

uint32_t *cpn_devfpe_word(int i) { return words + i; }

enum cpn_status cpn_devfpe_read(int first, int n, uint32_t *out)
{
    if (n <= 0) return CPN_OK;
    return cpn_backend_active()->to_host(out, words + first, (size_t)n * sizeof *words);
}

int cpn_devfpe_used(void) { return used; }
void cpn_devfpe_reset(void) { used = 0; }

void cpn_devfpe_report(struct cpn_fpreport *fp, int i)
{
    fp->dev = true;
    fp->dev_word = i;
}
