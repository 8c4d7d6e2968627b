/* Generated from themes/NAME/theme.conf for xgettext (never compiled): the
 * titles and subtitles of the shipped themes, translated at theme load. */
#define N_(s) s
static const char *const dmo_theme_strings[] = {
        N_("A restless night"),
        N_("Bringing your session back"),
        N_("Could not resume"),
        N_("Good morning"),
        N_("Good night"),
        N_("Hibernating"),
        N_("Hibernation cancelled"),
        N_("Hibernation failed; your work is still here"),
        N_("Hibernation was cancelled; your session is back"),
        N_("Resuming"),
        N_("Saving your session to disk. Press Esc to cancel."),
        N_("Something went wrong"),
        N_("Starting normally; see the message below"),
        N_("Still awake"),
        N_("Waking your session up"),
        N_("Your session is back; nothing was lost"),
        N_("Your session is being tucked away on disk. Esc cancels."),
        N_("Your session was not saved; see the message below"),
};
