"""The C that lets a native game be stepped from outside (recycle/native/stepping.py).

Why a C stack of its own, and not a flow that can re-enter itself: the generated flow keeps
where it stands (loop counters, a for-each's snapshot, the stage it is in) in C locals of
nested functions; making every one of them re-enterable means rewriting every flow writer.
Instead the game runs on a stack of its own (a few instructions of assembly on x86-64, which
swap the stack pointer and the callee-saved registers; ``makecontext``/``swapcontext`` elsewhere,
whose signal-mask system calls cost microseconds a switch) and ``choose``
switches back to the caller at each choice (``rc_suspend``): the caller lists the options,
clones, applies one, and the game goes on where it stopped.

A stopped game's frames hold pointers: into its own stack (saved frame pointers) and into the
state's arrays. So the stack and the arrays never move: one stack (``rc_stack``) and one set of
arrays (the runner's, stepping.py) per loaded library, and a state that is not running is a
*copy* of them: the arrays, the used part of the stack (from where it stopped to its top) and
the saved registers (``rc_step``). Running a state copies it back to the same addresses first,
as greenlet does with Python's C stack; ``clone`` is a copy of that block. A block is only ever
run by the library that made it (the code addresses in its frames are that library's)."""

STACK_BYTES = 1 << 20
MARGIN = 4096  # below where the game stopped: swapcontext's own frame and the red zone

HEADER = """#include <ucontext.h>
#include <string.h>
long long rc_stepping_wanted(void);
long long rc_suspend(long long n);
long long rc_suspend_at(long long n, long long site);
long long rc_block_load(void);
long long rc_block_resume(long long k);
"""


def harness(narrays: int) -> str:
    """The exported stepping functions of a module whose ``rc_games`` takes ``narrays`` arrays."""
    return f"""
/* stepping from outside (recycle/native/c/harness.py) */
#if defined(__x86_64__) && defined(__linux__)
/* switching stacks (x86-64 Linux: ELF symbols, System V registers): the callee-saved registers
   pushed, the stack pointer swapped (swapcontext
   also sets the signal mask, a call into the kernel each way: 3-5 us a decision on a sandboxed host) */
__asm__(
    ".pushsection .text\\n"
    ".p2align 4\\n"
    "rc_swap:\\n"
    "  pushq %rbp\\n  pushq %rbx\\n  pushq %r12\\n  pushq %r13\\n  pushq %r14\\n  pushq %r15\\n"
    "  movq %rsp, (%rdi)\\n"
    "  movq %rsi, %rsp\\n"
    "  popq %r15\\n  popq %r14\\n  popq %r13\\n  popq %r12\\n  popq %rbx\\n  popq %rbp\\n"
    "  ret\\n"
    ".popsection\\n");
void rc_swap(void **save, void *to);
typedef void *rc_ctx_t;
#define RC_TO_MAIN() rc_swap(&rc_step.ctx, rc_main_ctx)
#define RC_TO_GAME() rc_swap(&rc_main_ctx, rc_step.ctx)
#else
typedef ucontext_t rc_ctx_t;
#define RC_TO_MAIN() swapcontext(&rc_step.ctx, &rc_main_ctx)
#define RC_TO_GAME() swapcontext(&rc_main_ctx, &rc_step.ctx)
#endif
/* site first: the waiting choice's number (CHOICE_SITES), read from a saved block's first bytes */
struct rc_step_t {{ long long site; rc_ctx_t ctx; char *sp; long long nopts; long long done; }};
static struct rc_step_t rc_step;
static rc_ctx_t rc_main_ctx;
static char rc_stack[{STACK_BYTES}] __attribute__((aligned(64)));
static long long rc_choice;
static void *rc_sarrays[{narrays}];
static long long rc_sshapes[{3 * narrays}];
static long long rc_snumbers[4];
/* 1: the next game started is traced (its scores worked out at every stop: ctr[STEPPING] 2) */
static long long rc_trace;
long long rc_step_trace(long long on) {{ rc_trace = on; return on; }}
/* stepped: running on rc_stack (a rollout of another thread runs on its own thread's stack);
   2 when traced */
long long rc_stepping_wanted(void) {{
    char here;
    return (&here >= rc_stack && &here < rc_stack + sizeof rc_stack) ? 1 + (rc_trace != 0) : 0;
}}
static long long rc_switch(long long n) {{
    char here;
    rc_step.sp = &here;
    rc_step.nopts = n;
    RC_TO_MAIN();
    return rc_choice;
}}
long long rc_suspend(long long n) {{
    rc_step.site = 0;
    return rc_switch(n);
}}
long long rc_suspend_at(long long n, long long site) {{
    rc_step.site = site;
    return rc_switch(n);
}}
/* the waiting choice's number of the game in place (0: a choice the module did not number) */
long long rc_step_site(void) {{ return rc_step.site; }}
static void rc_trampoline(void) {{
    rc_games(rc_sarrays, rc_sshapes, rc_snumbers);
    rc_step.done = 1;
    rc_step.sp = rc_stack + {STACK_BYTES} - {MARGIN};
#if defined(__x86_64__) && defined(__linux__)
    RC_TO_MAIN();  /* never resumed (with ucontext, uc_link returns to the caller) */
#endif
}}
/* start one stepped game (one row of keys): the options of its first choice, or -1 at its end */
long long rc_step_start(void **arrays, long long *shapes, long long *numbers) {{
    memcpy(rc_sarrays, arrays, sizeof rc_sarrays);
    memcpy(rc_sshapes, shapes, sizeof rc_sshapes);
    memcpy(rc_snumbers, numbers, sizeof rc_snumbers);
#if defined(__x86_64__) && defined(__linux__)
    {{
        /* the new stack as rc_swap leaves one: six registers, then rc_trampoline as the return
           address, above it the slot of its own (never used) return address */
        void **top = (void **)(rc_stack + sizeof rc_stack);
        int i;
        *--top = 0;
        *--top = (void *)rc_trampoline;
        for (i = 0; i < 6; i++) *--top = 0;
        rc_step.ctx = top;
    }}
#else
    getcontext(&rc_step.ctx);
    rc_step.ctx.uc_stack.ss_sp = rc_stack;
    rc_step.ctx.uc_stack.ss_size = sizeof rc_stack;
    rc_step.ctx.uc_link = &rc_main_ctx;
    makecontext(&rc_step.ctx, rc_trampoline, 0);
#endif
    rc_step.done = 0;
    rc_step.site = 0;
    RC_TO_GAME();
    return rc_step.done ? -1 : rc_step.nopts;
}}
/* go on with option k of the waiting choice: the next choice's options, or -1 at the end */
long long rc_step_apply(long long k) {{
    if (rc_step.done) return -1;
    rc_choice = k;
    RC_TO_GAME();
    return rc_step.done ? -1 : rc_step.nopts;
}}
static char *rc_low(void) {{
    char *lo = rc_step.sp - {MARGIN};
    return lo < rc_stack ? rc_stack : lo;
}}
/* the bytes of the stopped game (its registers, then its stack's used part) */
long long rc_step_size(void) {{ return (long long)sizeof rc_step + (rc_stack + sizeof rc_stack - rc_low()); }}
void rc_step_save(char *dst) {{
    char *lo = rc_low();
    memcpy(dst, &rc_step, sizeof rc_step);
    memcpy(dst + sizeof rc_step, lo, rc_stack + sizeof rc_stack - lo);
}}
void rc_step_load(const char *src, long long size) {{
    memcpy(&rc_step, src, sizeof rc_step);
    long long used = size - (long long)sizeof rc_step;
    memcpy(rc_stack + sizeof rc_stack - used, src + sizeof rc_step, used);
}}
/* a search from a blind start (recycle/native/blind_search.py): the block each world copies in
   (the runner's arrays up to ``npool`` bytes, its scratch stack, its C stack and registers) */
static char *rc_bpool_to, *rc_bscratch_to;
static const char *rc_bpool, *rc_bscratch, *rc_braw;
static long long rc_bnpool, rc_bnscratch, rc_bnraw;
void rc_block_set(char *pool_to, const char *pool, long long npool, char *scratch_to, const char *scratch,
                  long long nscratch, const char *raw, long long nraw) {{
    rc_bpool_to = pool_to; rc_bpool = pool; rc_bnpool = npool;
    rc_bscratch_to = scratch_to; rc_bscratch = scratch; rc_bnscratch = nscratch;
    rc_braw = raw; rc_bnraw = nraw;
}}
long long rc_block_load(void) {{
    memcpy(rc_bpool_to, rc_bpool, rc_bnpool);
    memcpy(rc_bscratch_to, rc_bscratch, rc_bnscratch);
    rc_step_load(rc_braw, rc_bnraw);
    return 1;
}}
/* the stopped game goes on with option k (from the caller's stack): 1 at its end, 0 stopped again */
long long rc_block_resume(long long k) {{
    rc_choice = k;
    RC_TO_GAME();
    return rc_step.done;
}}
"""
