// swift-format-ignore-file
// Seed 001, Apple's "Building an app extension to support a host app" (ExtensionFoundation),
// its three code listings as the document prints them, byte for byte but for: the import
// (ExtensionFoundation became AppexExtension) and the document's `name "HostAppFeature"`, which
// lacks its colon (Examples/README.md, "The seeds' code on Linux"). The app's own pieces the
// listings use (MyTextTransformerExtension, ExampleExtension, HostAppInterface, myCustomObject,
// Text) are in App.swift.
import AppexExtension

struct MyAppExtension: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint { 
        AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
    }
}

struct ExampleConfiguration<E:ExampleExtension>: AppExtensionConfiguration {
        
    // Determine whether to accept the XPC connection from the host.
    func accept(connection: NSXPCConnection) -> Bool {
        connection.exportedObject = myCustomObject
        connection.exportedInterface = NSXPCInterface(with: HostAppInterface.self)
        connection.resume()
        return true
    }
}

public extension MyTextTransformerExtension {
    var configuration: some AppExtensionConfiguration {
        return ConnectionHandler { request  in
            let handler = Handler(appex: self)
            return request.accept { session in
                return handler
            }
        }
    }
}

// Process text translation requests using an XPCSession.  
struct Handler<E: MyTextTransformerExtension>: XPCPeerHandler {
    let appex: E
    
    func handleIncomingRequest(_ input: TranslateMessage) -> (any Encodable)? {
        let text = input.text
        let result = appex.translate(text:text)
        return TranslateMessage.Response(translatedText: result)
    }
}

// The input message from the host app and the translation response.
struct TranslateMessage: Codable {
    let text: String
    
    struct Response: Codable {
        let translatedText: Text
    }
}
