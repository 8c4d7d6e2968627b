# data: what "make install" puts outside the program (themes, fonts, the
# configuration, systemd, initramfs-tools, dracut, man pages, bash
# completion), and what the release tarball carries besides the sources.
#
# systemdsystemunitdir, initramfstoolsdir, dracutmodulesdir and
# bashcompletiondir come from configure (--with-...; the defaults are the
# directories the system reads, which are not under --prefix). They can
# still be overridden on the make command line.

# Themes and fonts, in the directories the program searches (DMO_DATADIR).
nobase_dist_pkgdata_DATA = \
	themes/default/LICENSE themes/default/theme.conf \
	themes/default/logo.png themes/default/logo@2x.png \
	themes/minimal/LICENSE themes/minimal/theme.conf \
	themes/nocturne/LICENSE themes/nocturne/theme.conf \
	themes/nocturne/moon.png themes/nocturne/moon@2x.png \
	themes/nocturne/moon-empty.png themes/nocturne/moon-empty@2x.png \
	themes/nocturne/stars.png themes/nocturne/stars@2x.png \
	themes/nocturne/throbber-00.png themes/nocturne/throbber-00@2x.png \
	themes/nocturne/throbber-01.png themes/nocturne/throbber-01@2x.png \
	themes/nocturne/throbber-02.png themes/nocturne/throbber-02@2x.png \
	themes/nocturne/throbber-03.png themes/nocturne/throbber-03@2x.png \
	themes/nocturne/throbber-04.png themes/nocturne/throbber-04@2x.png \
	themes/nocturne/throbber-05.png themes/nocturne/throbber-05@2x.png \
	themes/nocturne/throbber-06.png themes/nocturne/throbber-06@2x.png \
	themes/nocturne/throbber-07.png themes/nocturne/throbber-07@2x.png \
	themes/nocturne/throbber-08.png themes/nocturne/throbber-08@2x.png \
	themes/nocturne/throbber-09.png themes/nocturne/throbber-09@2x.png \
	themes/nocturne/throbber-10.png themes/nocturne/throbber-10@2x.png \
	themes/nocturne/throbber-11.png themes/nocturne/throbber-11@2x.png
dmofontsdir = $(pkgdatadir)/fonts
DMO_FONTS = fonts/DejaVuSans.ttf fonts/DejaVuSans-Bold.ttf fonts/NotoSansArabic-Regular.ttf
dist_dmofonts_DATA = $(DMO_FONTS) fonts/LICENSE.DejaVu fonts/LICENSE.Noto-OFL

# The same fonts for the initramfs only, cut down by fontTools to the
# characters "dormouse resume" can draw: ASCII, Latin-1, every character of
# the catalogs and of fonts/initramfs-chars.txt (fonts/README.md). The
# initramfs-tools hook and the dracut module put them where the full fonts
# are on the running system ($(pkgdatadir)/fonts), which keeps the full ones.
# Made again when a catalog changes or a new one comes.
DMO_FONT_CATALOGS = $(sort $(wildcard $(srcdir)/po/*.po)) $(srcdir)/po/dormouse.pot
EXTRA_DIST += fonts/initramfs-subset.py fonts/initramfs-chars.txt
if DMO_FONT_SUBSETS
dmoinitramfsfontsdir = $(pkgdatadir)/initramfs-fonts
nodist_dmoinitramfsfonts_DATA = $(DMO_FONTS:fonts/%=fonts/initramfs/%)
$(nodist_dmoinitramfsfonts_DATA): fonts/initramfs.stamp
	@test -f $@ || { rm -f fonts/initramfs.stamp && $(MAKE) $(AM_MAKEFLAGS) fonts/initramfs.stamp; }
fonts/initramfs.stamp: $(srcdir)/fonts/initramfs-subset.py $(srcdir)/fonts/initramfs-chars.txt \
		$(DMO_FONT_CATALOGS) $(DMO_FONTS:%=$(srcdir)/%)
	$(AM_V_GEN)rm -f $@ && $(FONTTOOLS_PYTHON) $(srcdir)/fonts/initramfs-subset.py \
	  --out fonts/initramfs --chars $(srcdir)/fonts/initramfs-chars.txt \
	  $(DMO_FONT_CATALOGS:%=--po %) $(DMO_FONTS:%=$(srcdir)/%) && touch $@
CLEANFILES += fonts/initramfs.stamp $(nodist_dmoinitramfsfonts_DATA)
DMO_FONTS_TEST_DEPS = fonts/initramfs.stamp
endif
# The cut-down fonts draw what the full ones draw: every character of every
# catalog has its glyph in the font the splash picks, and resume frames are
# the same PNG with either set.
check_PROGRAMS += tests/fonts-coverage
tests_fonts_coverage_SOURCES = tests/fonts-coverage.c
tests_fonts_coverage_LDADD = $(FREETYPE_LIBS)
TESTS += tests/fonts-initramfs.sh
EXTRA_DIST += tests/fonts-initramfs.sh
tests/fonts-initramfs.log: dormouse$(EXEEXT) tests/fonts-coverage$(EXEEXT) \
	data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES $(DMO_FONTS_TEST_DEPS)
AM_TESTS_ENVIRONMENT += FONTTOOLS_PYTHON='$(FONTTOOLS_PYTHON)'; export FONTTOOLS_PYTHON;

# The documented example configuration; it becomes $(sysconfdir)/dormouse.conf
# only where there is none yet (an administrator's file is never
# overwritten). The program reads the same path (DMO_SYSCONFDIR).
dist_doc_DATA = data/dormouse.conf doc/cli.md doc/config.md doc/integration.md doc/themes.md \
	doc/image-format.md doc/benchmarks.md
install-data-hook: dmo-install-conf
dmo-install-conf:
	@if test -e "$(DESTDIR)$(sysconfdir)/dormouse.conf"; then \
	  echo "  keeping the existing $(DESTDIR)$(sysconfdir)/dormouse.conf"; \
	else \
	  $(MKDIR_P) "$(DESTDIR)$(sysconfdir)" && \
	  $(INSTALL_DATA) $(srcdir)/data/dormouse.conf "$(DESTDIR)$(sysconfdir)/dormouse.conf"; \
	fi
# Uninstall takes it away only while it is still the unchanged example.
uninstall-hook: dmo-uninstall-conf
dmo-uninstall-conf:
	@if cmp -s $(srcdir)/data/dormouse.conf "$(DESTDIR)$(sysconfdir)/dormouse.conf"; then \
	  rm -f "$(DESTDIR)$(sysconfdir)/dormouse.conf"; \
	elif test -e "$(DESTDIR)$(sysconfdir)/dormouse.conf"; then \
	  echo "  keeping the changed $(DESTDIR)$(sysconfdir)/dormouse.conf"; \
	fi
.PHONY: dmo-install-conf dmo-uninstall-conf

# Files that name installation paths are made from their .in templates.
dmo_subst = sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	-e 's|@localstatedir[@]|$(localstatedir)|g' \
	-e 's|@pkgdatadir[@]|$(pkgdatadir)|g' -e 's|@localedir[@]|$(localedir)|g' \
	-e 's|@pkglibexecdir[@]|$(pkglibexecdir)|g' -e 's|@pkglibdir[@]|$(pkglibdir)|g' -e 's|@docdir[@]|$(docdir)|g' \
	-e 's|@systemdsystemunitdir[@]|$(systemdsystemunitdir)|g' \
	-e 's|@initramfstoolsdir[@]|$(initramfstoolsdir)|g' \
	-e 's|@dracutmodulesdir[@]|$(dracutmodulesdir)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'
DMO_DROPINS = data/systemd/systemd-hibernate.service.d/dormouse.conf \
	data/systemd/systemd-hybrid-sleep.service.d/dormouse.conf \
	data/systemd/systemd-suspend-then-hibernate.service.d/dormouse.conf
DMO_SUBST_FILES = $(DMO_DROPINS) \
	data/systemd/dormouse-sleep-hooks data/initramfs-tools/hooks/dormouse \
	data/dracut/90dormouse/module-setup.sh \
	man/dormouse.8 man/dormouse.conf.5 man/dormouse-themes.7 data/bash-completion/dormouse
$(DMO_SUBST_FILES): %: %.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(dmo_subst) $(srcdir)/$@.in >$@.tmp && \
	  if test -x $(srcdir)/$@.in; then chmod +x $@.tmp; fi && mv -f $@.tmp $@
CLEANFILES += $(DMO_SUBST_FILES)
EXTRA_DIST += $(DMO_SUBST_FILES:=.in)

# The locale dmo_i18n_init() selects for LC_MESSAGES under LANG=C.UTF-8 and
# LANGUAGE (glibc 2.39 and later ignore LANGUAGE in C.<codeset> locales):
# C.UTF-8's LC_MESSAGES, copied from this system's compiled locale, under
# the name "dormouse". Its binary format is glibc's, hence $(pkglibdir).
DMO_C_LOCALE_DIRS = /usr/lib/locale/C.utf8 /usr/lib/locale/C.UTF-8 /usr/lib64/locale/C.utf8
dmomsglocaledir = $(pkglibdir)/locale/dormouse/LC_MESSAGES
nodist_dmomsglocale_DATA = data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES
data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES:
	$(AM_V_GEN)for d in $(DMO_C_LOCALE_DIRS); do \
	  if test -f "$$d/LC_MESSAGES/SYS_LC_MESSAGES"; then \
	    $(MKDIR_P) $(@D) && cp "$$d/LC_MESSAGES/SYS_LC_MESSAGES" $@.tmp && mv -f $@.tmp $@; \
	    exit $$?; \
	  fi; \
	done; \
	echo "$@: no compiled C.UTF-8 locale in $(DMO_C_LOCALE_DIRS);" \
	  "name its directory with make DMO_C_LOCALE_DIRS=DIR" >&2; exit 1
CLEANFILES += data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES

# Man pages.
nodist_man8_MANS = man/dormouse.8
nodist_man5_MANS = man/dormouse.conf.5
nodist_man7_MANS = man/dormouse-themes.7

# bash completion for "dormouse".
if DMO_BASH_COMPLETION
nodist_bashcompletion_DATA = data/bash-completion/dormouse
endif

# systemd: dormouse behind the desktop's Hibernate (systemd-hibernate.service).
# data/install-layout.sh installs the drop-in only where it is safe: where
# systemd reads it *and* an initramfs hook that can resume is installed
# where initramfs-tools or dracut read it; otherwise it is parked, inactive,
# in $(pkgdatadir)/systemd and the end of "make install" says so.
nodist_pkglibexec_SCRIPTS = data/systemd/dormouse-sleep-hooks
dmo_layout = env DESTDIR='$(DESTDIR)' MKDIR_P='$(MKDIR_P)' INSTALL_DATA='$(INSTALL_DATA)' \
	sysconfdir='$(sysconfdir)' pkgdatadir='$(pkgdatadir)' \
	systemdsystemunitdir='$(systemdsystemunitdir)' initramfstoolsdir='$(initramfstoolsdir)' \
	dracutmodulesdir='$(dracutmodulesdir)' \
	dracut_system_modulesdir='$(DRACUT_SYSTEM_MODULESDIR)' \
	$(SHELL) $(srcdir)/data/install-layout.sh
# After the configuration file: the summary ends "make install".
install-data-hook: dmo-install-layout
dmo-install-layout: dmo-install-conf $(DMO_DROPINS)
	@$(dmo_layout) install $(DMO_DROPINS)
uninstall-hook: dmo-uninstall-layout
dmo-uninstall-layout:
	@$(dmo_layout) uninstall
.PHONY: dmo-install-layout dmo-uninstall-layout
EXTRA_DIST += data/install-layout.sh
all-local: $(DMO_DROPINS)

# initramfs-tools (Debian, Ubuntu): the hook and the resume script.
if DMO_INITRAMFS_TOOLS
initramfshooksdir = $(initramfstoolsdir)/hooks
nodist_initramfshooks_SCRIPTS = data/initramfs-tools/hooks/dormouse
initramfspremountdir = $(initramfstoolsdir)/scripts/local-premount
dist_initramfspremount_SCRIPTS = data/initramfs-tools/scripts/local-premount/dormouse
else
EXTRA_DIST += data/initramfs-tools/scripts/local-premount/dormouse
endif

# dracut (Fedora, Arch, openSUSE): the 90dormouse module.
if DMO_DRACUT
dracutmoduledir = $(dracutmodulesdir)/90dormouse
nodist_dracutmodule_SCRIPTS = data/dracut/90dormouse/module-setup.sh
dist_dracutmodule_SCRIPTS = data/dracut/90dormouse/dormouse-resume.sh
else
EXTRA_DIST += data/dracut/90dormouse/dormouse-resume.sh
endif

# The catalogs (msgfmt --check, translated fraction, real lookups), every
# theme laid out in every language, the installed
# tree, the initramfs scripts run in a busybox chroot, the man pages and the
# completion.
TESTS += tests/po-catalogs.sh tests/splash-languages.sh tests/data-install.sh \
	tests/data-initramfs.sh tests/data-man.sh tests/cli-messages.sh
EXTRA_DIST += tests/po-catalogs.sh tests/splash-languages.sh tests/data-install.sh tests/data-initramfs.sh \
	tests/data-man.sh tests/tap.sh tests/cli-messages.sh
AM_TESTS_ENVIRONMENT += MAKE='$(MAKE)'; MSGFMT='$(MSGFMT)'; XGETTEXT='$(XGETTEXT)'; \
	MSGMERGE='$(MSGMERGE)'; GROFF='$(GROFF)'; export MAKE MSGFMT XGETTEXT MSGMERGE GROFF;
tests/po-catalogs.log: dormouse$(EXEEXT) data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES
tests/splash-languages.log: dormouse$(EXEEXT) data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES
tests/cli-messages.log: dormouse$(EXEEXT) data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES
tests/data-man.log: dormouse$(EXEEXT) $(nodist_man8_MANS) $(nodist_man5_MANS) $(nodist_man7_MANS) \
	data/bash-completion/dormouse

# --- the release tarball ------------------------------------------------------
# Everything git tracks that a build, a test or a packager needs.
EXTRA_DIST += autogen.sh README.md demo.sh themes/README.md fonts/README.md po/README.md \
	themes/theme-strings.c themes/tools/make-art.c \
	tests/run-suite tests/demo-run tests/fuzz/run-libfuzzer tests/fuzz/README.md tests/fuzz/corpus \
	tests/fuzz/theme-base \
	tools/install-deps tools/packages tools/build-deb tests/deb/check-package
# The Debian packaging (tools/build-deb builds it; doc/integration.md,
# "The Debian package").
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules debian/source/format \
	debian/dormouse.dirs debian/dormouse.lintian-overrides debian/dormouse.postinst \
	debian/dormouse.postrm debian/dormouse.prerm
# tests/vm is copied without what its runs leave there (the cached Debian
# root file system, screendumps, Python's byte code).
dist-hook: dmo-dist-vm
dmo-dist-vm:
	@dd=`cd $(distdir) && pwd`; cd $(srcdir) && \
	find tests/vm \( -name cache -o -name out -o -name __pycache__ \) -prune -o -type f -print | \
	while read -r f; do \
	  $(MKDIR_P) "$$dd/$${f%/*}" && cp -p "$$f" "$$dd/$$f" || exit 1; \
	done
.PHONY: dmo-dist-vm

# distcheck installs as an ordinary user under a temporary prefix: the
# system directories are put under it too (install-layout.sh then parks
# the drop-in, which is what it must do there).
AM_DISTCHECK_CONFIGURE_FLAGS = --enable-werror \
	--with-systemdsystemunitdir='$$(prefix)/lib/systemd/system' \
	--with-initramfs-tools-dir='$$(datadir)/initramfs-tools' \
	--with-dracut-dir='$$(prefix)/lib/dracut/modules.d' \
	--with-bashcompletiondir='$$(datadir)/bash-completion/completions'
