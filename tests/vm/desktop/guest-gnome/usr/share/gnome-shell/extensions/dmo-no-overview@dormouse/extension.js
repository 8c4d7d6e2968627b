// GNOME Shell shows the overview when a session starts (when the session
// mode has one); the harness looks for the windows on the background.
// While the shell starts up the session mode says it has no overview, and
// afterwards what it said before.
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

export default class NoOverview extends Extension {
    enable() {
        if (!Main.layoutManager._startingUp)
            return;
        this._had = Main.sessionMode.hasOverview;
        Main.sessionMode.hasOverview = false;
        this._id = Main.layoutManager.connect('startup-complete', () => {
            Main.sessionMode.hasOverview = this._had;
            Main.layoutManager.disconnect(this._id);
            this._id = 0;
        });
    }

    disable() {
        if (this._id) {
            Main.layoutManager.disconnect(this._id);
            Main.sessionMode.hasOverview = this._had;
            this._id = 0;
        }
    }
}
