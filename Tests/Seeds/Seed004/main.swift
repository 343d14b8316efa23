// swift-format-ignore-file
// Seed 004, Apple's "Discovering app extensions from your app" (ExtensionKit), its two code
// listings as the document prints them, run in this order from inside a host app. Changed: the
// import (ExtensionKit became AppexHost; Observations is the Observation module's) and the
// second listing's missing `try await` (the first listing has it: a monitor's creation is
// asynchronous and can fail; Examples/README.md, "The seeds' code on Linux"). After each of the
// document's placeholders, one line of this app's (`report`, in App.swift) says what it got.
import AppexHost
import Observation

// Get one of the app's defined AppExtensionPoint types.
let someExtensionPoint = AppExtensionPoint.myExampleExtensionPoint
// Get a snapshot of the available app extension identities.
let identitiesSnapshot = try await AppExtensionPoint.Monitor(someExtensionPoint).identities
report("snapshot", identitiesSnapshot)

let monitor = try await AppExtensionPoint.Monitor(appExtensionPoint:someExtensionPoint)
let identitiesUpdates = Observations { monitor.identities }
Task {
for await update in identitiesUpdates {
// Process the new list of app extension identities.
report("update", update)
}
}
await runUntilEnough()
