public import AppexVocabulary

// The codes of widgets.
extension AppexError.Code {
    /// A widget entry's encoded view tree is larger than `ViewTree.byteLimit`; the context
    /// names the widget's kind.
    public static var viewTreeTooLarge: Self { .init("view-tree-too-large") }
    /// A widget used up its daily reload budget: it keeps its last timeline until the budget
    /// renews; the context names the widget's kind.
    public static var reloadBudgetExhausted: Self { .init("reload-budget-exhausted") }
}

extension AppexError.Code {
    /// An interactive widget's intent threw from `perform()`; the message carries its error.
    public static var intentFailed: Self { .init("intent-failed") }
}
