@_exported public import struct AppexVocabulary.AppexError
@_exported public import struct AppexWidgetKit.ViewTree
@_exported public import struct AppexWidgetKit.WidgetDescriptor
// What a widget host's users name without importing another module: the widgets' families,
// descriptors and view trees, and the error every Appex call throws.
@_exported public import enum AppexWidgetKit.WidgetFamily
