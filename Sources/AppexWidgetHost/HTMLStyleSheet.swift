internal import AppexWidgetKit

/// The style sheet of ``HTMLRenderer/page(_:title:)``: fixed rules, and one size rule per family
/// from `WidgetFamily.displaySize`. It loads nothing (no fonts, images or imports).
package enum HTMLStyleSheet {
    /// The whole sheet.
    static let css: String =
        "body{margin:16px;background:#e5e5ea;font-family:system-ui,-apple-system,sans-serif}\n"
        + widgetRules

    /// The rules of the widgets and their contents alone (the window adds them to its own sheet).
    package static let widgetRules: String = {
        var rules = fixedRules
        for (level, value) in CSSValues.levelValues.enumerated() {
            rules += ".fg-level\(level){color:\(value)}" + (level > 0 ? ".bg-level\(level){background:\(value)}" : "")
            rules += ".bg-fill\(level){background:\(CSSValues.fillValues[level])}\n"
        }
        rules +=
            ".fg-background{color:\(CSSValues.backgroundValue)}.bg-background{background:\(CSSValues.backgroundValue)}\n"
        for (name, value) in CSSValues.namedColorValues {
            rules += ".fg-\(name){color:\(value)}.bg-\(name){background:\(value)}\n"
        }
        for family in WidgetFamily.allCases {
            let size = family.displaySize
            rules += ".family-\(family.rawValue){width:\(CSSValues.pixels(size.width) ?? "0px");"
            rules += "height:\(CSSValues.pixels(size.height) ?? "0px")}\n"
        }
        return rules
    }()

    private static let fixedRules = """
        .widgets{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
        .widget{flex:none;box-sizing:border-box;display:flex;flex-direction:column;overflow:hidden;border-radius:20px;\
        background:#fff;color:#000;font-size:15px;line-height:1.25}
        .widget>header{font-size:11px;font-weight:600;color:rgba(60,60,67,.6);padding:6px 12px 0}
        .widget>.status{margin:0;padding:2px 12px 6px;font-size:11px;color:#a15c00}
        .content{flex:1 1 0;min-height:0;display:flex;flex-direction:column;align-items:center;\
        justify-content:center;overflow:hidden}
        .placeholder{margin:0;color:rgba(60,60,67,.6)}
        .vstack,.hstack,.w,.frame,.link,.widget-url{display:flex;min-width:0;min-height:0}
        .vstack,.w,.frame,.link,.widget-url{flex-direction:column}
        .vstack,.hstack{gap:8px}
        .w,.link,.widget-url{align-items:center;justify-content:center}
        .link,.widget-url{color:inherit;text-decoration:none}
        .vstack.h-leading{align-items:flex-start}.vstack.h-center{align-items:center}\
        .vstack.h-trailing{align-items:flex-end}
        .hstack.v-top{align-items:flex-start}.hstack.v-center{align-items:center}.hstack.v-bottom{align-items:flex-end}
        .zstack{display:grid}.zstack>*{grid-area:1/1}
        .zstack.h-leading{justify-items:start}.zstack.h-center{justify-items:center}.zstack.h-trailing{justify-items:end}
        .zstack.v-top{align-items:start}.zstack.v-center{align-items:center}.zstack.v-bottom{align-items:end}
        .frame.h-leading{align-items:flex-start}.frame.h-center{align-items:center}.frame.h-trailing{align-items:flex-end}
        .frame.v-top{justify-content:flex-start}.frame.v-center{justify-content:center}\
        .frame.v-bottom{justify-content:flex-end}
        .grow{flex:1 1 0}.stretch{align-self:stretch}.fill-w{justify-self:stretch}
        .root{flex:1 1 auto;align-self:stretch}
        .spacer{flex:1 1 0}
        hr{border:0;border-top:1px solid rgba(60,60,67,.29);margin:0;align-self:stretch}
        .hstack>hr{border-top:0;border-left:1px solid rgba(60,60,67,.29)}
        .text{display:block;min-width:0;overflow-wrap:anywhere}
        .clamp .text{display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:var(--lines);overflow:hidden}
        .font-largeTitle{font-size:34px}.font-title{font-size:28px}.font-title2{font-size:22px}
        .font-title3{font-size:20px}.font-headline{font-size:17px;font-weight:600}.font-subheadline{font-size:15px}
        .font-body{font-size:17px}.font-callout{font-size:16px}.font-footnote{font-size:13px}
        .font-caption{font-size:12px}.font-caption2{font-size:11px}.mono{font-family:ui-monospace,monospace}
        .weight-ultraLight{font-weight:100}.weight-thin{font-weight:200}.weight-light{font-weight:300}
        .weight-regular{font-weight:400}.weight-medium{font-weight:500}.weight-semibold{font-weight:600}
        .weight-bold{font-weight:700}.weight-heavy{font-weight:800}.weight-black{font-weight:900}
        .italic{font-style:italic}.upright{font-style:normal}
        .fg-fill0,.fg-fill1,.fg-fill2,.fg-fill3{color:rgba(120,120,128,.5)}.bg-level0{background:currentColor}
        .shape{position:relative;box-sizing:border-box;min-width:0;min-height:0}
        .shape-box{display:flex;align-items:center;justify-content:center;container-type:size;min-width:0;min-height:0}
        .shape-circle{flex:none;width:min(100cqw,100cqh);height:min(100cqw,100cqh);border-radius:50%}
        .shape-capsule{border-radius:9999px}.shape-ellipse{border-radius:50%}
        .shape>svg{position:absolute;left:0;top:0;width:100%;height:100%;overflow:visible}

        """
}
