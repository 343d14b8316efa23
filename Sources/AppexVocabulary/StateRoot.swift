/// Where Appex's state lives, from a process's variables: one rule for every module (the
/// stores' `AppexEnvironment`, and `WidgetCenter` in a process that links no store).
package enum StateRoot {
    /// `APPEX_HOME`; else `$XDG_DATA_HOME/appex`; else `$HOME/.local/share/appex`.
    package static func home(variables: [String: String], userHome: String) -> String {
        if let explicit = variables["APPEX_HOME"], !explicit.isEmpty { return explicit }
        if let xdg = variables["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/appex" }
        return userHome + "/.local/share/appex"
    }

    /// `<home>/Widgets/Reloads`: where apps leave reload requests for the widget host.
    package static func widgetReloads(home: String) -> String { home + "/Widgets/Reloads" }

    /// `<home>/Widgets/Activities`: the Live Activities apps run, a file each, for the widget host.
    package static func widgetActivities(home: String) -> String { home + "/Widgets/Activities" }
}
