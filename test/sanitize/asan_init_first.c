/*
 * Preloaded after libasan (scripts/sanitize.sh) into PostgreSQL's programs, which are not built
 * with ASan. A preloaded libasan initialises on the first intercepted call, and in these programs
 * that call is a malloc() inside glibc while it holds one of its locks: inside bindtextdomain(),
 * called by the constructor of libgpg-error (a dependency of PostgreSQL's TLS and Kerberos
 * libraries), inside newlocale(), called by the constructor of libp11-kit, or inside setlocale().
 * ASan's initialisation calls dlerror(), which takes
 * the same lock again and releases it: the lock is corrupted and the program's next
 * bindtextdomain() or setlocale() waits forever. These functions interpose glibc's: each lets ASan
 * initialise (a malloc) before glibc takes its lock.
 *
 * It also keeps UBSAN_OPTIONS for UBSan: its runtime (loaded with pg_grail) reads its options at
 * the first report, from /proc/self/environ, which PostgreSQL has overwritten by then with the
 * process titles; __ubsan_default_options() gives it the options this constructor saved.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

static void
let_asan_initialise(void)
{
	void	   *volatile first = malloc(1);	/* volatile: not optimised away */

	free(first);
}

char *
bindtextdomain(const char *domainname, const char *dirname)
{
	static char *(*real) (const char *, const char *);

	let_asan_initialise();
	if (real == NULL)
		real = (char *(*) (const char *, const char *)) dlsym(RTLD_NEXT, "bindtextdomain");
	return real(domainname, dirname);
}

char *
setlocale(int category, const char *locale)
{
	static char *(*real) (int, const char *);

	let_asan_initialise();
	if (real == NULL)
		real = (char *(*) (int, const char *)) dlsym(RTLD_NEXT, "setlocale");
	return real(category, locale);
}

locale_t
newlocale(int category_mask, const char *locale, locale_t base)
{
	static locale_t (*real) (int, const char *, locale_t);

	let_asan_initialise();
	if (real == NULL)
		real = (locale_t (*) (int, const char *, locale_t)) dlsym(RTLD_NEXT, "newlocale");
	return real(category_mask, locale, base);
}

static char ubsan_options[4096];

__attribute__((constructor)) static void
save_ubsan_options(void)
{
	const char *options = getenv("UBSAN_OPTIONS");

	if (options != NULL)
		strncpy(ubsan_options, options, sizeof(ubsan_options) - 1);
}

const char *__ubsan_default_options(void);

const char *
__ubsan_default_options(void)
{
	return ubsan_options;
}
