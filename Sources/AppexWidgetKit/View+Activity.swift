// The modifiers of a Live Activity's Lock Screen view.
extension View {
    /// The Lock Screen view's background: drawn behind the activity's tile.
    public func activityBackgroundTint(_ color: Color?) -> ModifiedContent<Self> {
        let paint = color?.paint
        return modified { node in paint.map { .background($0, node) } ?? node }
    }

    /// The colour of the system's buttons beside the activity: accepted and not drawn (the
    /// desktop draws no such buttons).
    public func activitySystemActionForegroundColor(_ color: Color?) -> ModifiedContent<Self> {
        modified { $0 }
    }
}
