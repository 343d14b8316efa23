import Dispatch

/// Runs blocking `work` (file I/O, a lock wait) on a Dispatch worker, never on a thread of
/// Swift's cooperative pool, and resumes with its outcome: the async twin of a blocking call.
///
/// The cooperative pool has one thread per core (two here): one blocked thread is half of it.
package func withoutBlockingThePool<Value: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        DispatchQueue.global().async {
            do throws(Failure) {
                continuation.resume(returning: .success(try work()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
    }
    return try outcome.get()
}
