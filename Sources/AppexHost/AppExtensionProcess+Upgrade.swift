import AppexCore
@_spi(Wire) import AppexIPC
import AppexSystem
import AppexVocabulary
import Foundation
import Logging
import Synchronization

// Upgrades without losing a call: when the bundle is replaced (a new build, the same identifier,
// a valid seal), calls in flight finish on the running process and the next call launches the new
// one; a replacement that is not valid leaves the running process serving and says why. Apple's
// hosts end the old process; here no call fails.
extension AppExtensionProcess {
    /// The folders whose changes may mean the bundle was replaced: the bundle, its seal's
    /// folder, and the folder holding it (a bundle moved into place).
    var watchedForUpgrade: Set<String> {
        let bundle = configuration.identity.bundlePath
        return [bundle, bundle + "/_CodeSignature", (bundle as NSString).deletingLastPathComponent]
    }

    /// Starts watching the bundle for a replacement, once, after the first launch.
    func watchForUpgrade() {
        upgradeWatch.withLock { watch in
            guard watch == nil else { return }
            guard
                let watcher = try? DirectoryWatcher({ [weak self] in
                    self?.bundleChanged.store(true, ordering: .releasing)
                })
            else {
                return  // no inotify: the running process serves until it ends, as before
            }
            _ = watcher.watch(watchedForUpgrade)
            watch = watcher
        }
    }

    /// The seal of the bundle on disk now (`nil` while a replacement is half done).
    var currentSeal: FileStatus? {
        try? Syscalls.stat(configuration.identity.bundlePath + "/" + AppexBundle.File.seal)
    }

    /// Called before a call takes the running process: when the bundle changed since, and the
    /// new one may run, the running process retires (it ends after its calls in flight) and the
    /// call launches the new one. When the new one may not run, the running one serves on, and
    /// the refusal is logged and kept (``lastUpgradeRefusal``).
    func retireIfReplaced() {
        guard bundleChanged.exchange(false, ordering: .acquiringAndReleasing) else { return }
        upgradeWatch.withLock { _ = $0?.watch(watchedForUpgrade) }  // follow a bundle moved into place
        guard
            let running = state.withLock({ state -> Child? in
                if case .running(let child) = state.phase { return child }
                return nil
            })
        else { return }
        // Unchanged (another file of the folder changed), or half replaced: the watch fires
        // again when the new seal lands.
        guard let seal = currentSeal, seal != running.seal else { return }
        do {
            try checkMayRun()
        } catch {
            state.withLock { $0.upgradeRefusal = error }
            configuration.logger.warning(
                "the replaced bundle is refused; the running process serves on",
                metadata: [
                    "extension": "\(configuration.identity.bundleIdentifier)", "pid": "\(running.pid)",
                    "reason": "\(error)",
                ]
            )
            return
        }
        let retired = state.withLock { state -> Bool in
            guard case .running(let current) = state.phase, current === running else { return false }
            state.phase = .idle  // the next call launches the new build
            state.upgradeRefusal = nil
            state.retiring.append(running)
            return true
        }
        guard retired else { return }
        let idle = running.activity.withLock { activity -> Bool in
            activity.retiring = true
            return activity.inFlight == 0
        }
        if idle { endRetired(running) }
        // What the old process held (its scenes, the actors it exported) ends with it: the host
        // hears of it as of any end of the process, and opens them again on the new build.
        configuration.onInterruption(
            AppexError(
                .interrupted,
                "\(configuration.identity.bundleIdentifier) (pid \(running.pid)) was replaced by a new build of its bundle: calls in flight finish on it, the next call launches the new one",
                context: errorContext(pid: running.pid)
            )
        )
    }

    /// Ends a retired process after its last call (or at ``invalidate()``): on purpose, neither a
    /// crash nor an interruption of a call.
    func endRetired(_ child: Child) {
        let mine = state.withLock { state -> Bool in
            guard let index = state.retiring.firstIndex(where: { $0 === child }) else { return false }
            state.retiring.remove(at: index)
            return true
        }
        guard mine else { return }  // ended already, by invalidate()
        child.connection.invalidate()
        child.kill()
        counters.stopped(pid: child.pid)
    }

    /// Why the last replacement of the bundle was not taken up, while the process it would have
    /// replaced serves on; `nil` once a replacement is taken up.
    package var lastUpgradeRefusal: AppexError? { state.withLock { $0.upgradeRefusal } }
}
