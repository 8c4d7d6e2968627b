# The KDE guest: SDDM starts the Plasma session; no Weston from the login
# shell that SDDM's wayland-session runs it through.
