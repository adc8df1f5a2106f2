#include "syscall_filter.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define SET_RETURN(uc, v) ((uc)->uc_mcontext.gregs[REG_RAX] = (greg_t)(v))
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define SET_RETURN(uc, v) ((uc)->uc_mcontext.regs[0] = (unsigned long long)(v))
#endif

/* What the running agent calls (see the header), each only if this
 * architecture has it. socket() is allowed for four families only (below). */
static const int allowed[] = {
#define A(name) __NR_##name,
/* the data path's calls first: the filter tests them in this order */
    A(recvmmsg) A(sendmmsg) A(write) A(writev) A(recvfrom) A(sendto) A(epoll_pwait)
#ifdef __NR_epoll_wait
    A(epoll_wait)
#endif
#ifdef __NR_read
    A(read)
#endif
    A(readv) A(recvmsg) A(sendmsg) A(bpf) A(clock_gettime)
#ifdef __NR_epoll_pwait2
    A(epoll_pwait2)
#endif
/* descriptors, the event loop, a port bound again when it comes back,
 * netlink, the control socket */
    A(close) A(ioctl) A(fcntl) A(lseek) A(fstat) A(epoll_ctl) A(ppoll) A(pselect6) A(bind) A(setsockopt)
    A(getsockopt) A(getsockname) A(accept4) A(shutdown)
#ifdef __NR_newfstatat
    A(newfstatat)
#endif
#ifdef __NR_poll
    A(poll)
#endif
#ifdef __NR_accept
    A(accept)
#endif
/* memory, time, signals, identity */
    A(mmap) A(munmap) A(mremap) A(mprotect) A(madvise) A(brk) A(futex) A(clock_getres) A(gettimeofday)
    A(nanosleep) A(clock_nanosleep) A(rt_sigaction) A(rt_sigprocmask) A(rt_sigreturn) A(sigaltstack)
    A(getrandom) A(getpid) A(gettid) A(getuid) A(geteuid) A(getgid) A(getegid) A(uname) A(sched_yield)
    A(restart_syscall) A(tgkill)
#ifdef __NR_time
    A(time)
#endif
/* exit: the pidfile and the control socket removed */
    A(unlinkat) A(exit) A(exit_group)
#ifdef __NR_unlink
    A(unlink)
#endif
#if defined(__SANITIZE_ADDRESS__)
/* the sanitizers' own run time (test builds only): LeakSanitizer stops the
 * process with a ptrace()ing clone at exit and reads /proc/self */
    A(clone) A(ptrace) A(wait4) A(prctl) A(openat) A(readlinkat) A(getdents64) A(sched_getaffinity) A(getppid)
    A(kill)
/* on x86_64 the sanitizers' run time calls the old forms: open, getdents,
 * readlink, stat */
#ifdef __NR_readlink
    A(readlink)
#endif
#ifdef __NR_open
    A(open)
#endif
#ifdef __NR_getdents
    A(getdents)
#endif
#ifdef __NR_stat
    A(stat) A(lstat)
#endif
#endif
#undef A
};

static const int socket_families[] = {AF_UNIX, AF_INET, AF_NETLINK, AF_PACKET};

static volatile uint64_t denied;
static volatile uint8_t reported[1024 / 8];

uint64_t syscall_filter_denied(void) { return denied; }

#ifdef NATIVE_ARCH

/* async-signal-safe: "dcn-agent: system call N denied ..." once per N */
static void report(int nr)
{
    if (nr >= 0 && nr < 1024) {
        if (reported[nr / 8] & (1u << (nr % 8)))
            return;
        reported[nr / 8] |= (uint8_t)(1u << (nr % 8));
    }
    char line[96] = "dcn-agent: system call ";
    size_t n = strlen(line);
    char digits[12];
    int d = 0;
    unsigned v = nr < 0 ? 0u : (unsigned)nr;
    do {
        digits[d++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && d < (int)sizeof digits);
    while (d)
        line[n++] = digits[--d];
    const char tail[] = " denied (os/syscall_filter.c; counted as syscall_denied)\n";
    memcpy(line + n, tail, sizeof tail - 1);
    n += sizeof tail - 1;
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
}

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    int saved = errno;
    denied++;
    SET_RETURN((ucontext_t *)ctx, -EPERM);
    report(si->si_syscall);
    errno = saved;
}

#define STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP((code), (k), (jt), (jf)))

int syscall_filter_install(char *err, size_t errlen)
{
    enum { N = sizeof allowed / sizeof allowed[0], F = sizeof socket_families / sizeof socket_families[0] };
    /* 0-2: a foreign arch is killed; 3-5: so is a foreign ABI's number (x32
     * calls carry x86_64's arch with bit 30 set); then the list, socket()
     * by its family, and everything else trapped (on_sigsys) */
    struct sock_filter prog[6 + N + 3 + F + 2];
    const unsigned allow_at = (unsigned)(sizeof prog / sizeof prog[0]) - 1;
    _Static_assert(sizeof prog / sizeof prog[0] - 1 - 7 <= 255, "every jump to the allow reaches it");
    unsigned i = 0;
    prog[i++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    prog[i++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
    prog[i++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    prog[i++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    prog[i++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    prog[i++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    for (unsigned k = 0; k < N; k++, i++)
        prog[i] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)allowed[k], (unsigned char)(allow_at - i - 1), 0);
    prog[i++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)__NR_socket, 1, 0);
    prog[i++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    /* the family: args[0]'s low 32 bits (little-endian: x86_64, aarch64) */
    prog[i++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    for (unsigned k = 0; k < F; k++, i++)
        prog[i] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)socket_families[k], (unsigned char)(allow_at - i - 1), 0);
    prog[i++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    prog[i++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    if (i != allow_at + 1) {
        snprintf(err, errlen, "system call filter: %u instructions built, %u planned", i, allow_at + 1);
        return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) < 0) {
        snprintf(err, errlen, "system call filter: SIGSYS handler: %s", strerror(errno));
        return -1;
    }
    struct sock_fprog fprog = {.len = (unsigned short)i, .filter = prog};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) < 0) {
        snprintf(err, errlen, "system call filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}

#else

int syscall_filter_install(char *err, size_t errlen)
{
    snprintf(err, errlen, "system call filter: no allow-list for this architecture");
    return -1;
}

#endif
