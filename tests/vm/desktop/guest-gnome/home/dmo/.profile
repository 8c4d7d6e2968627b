# The GNOME guest: GDM starts the session; no Weston from the login shell
# that gnome-session runs itself through.
