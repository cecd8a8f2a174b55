import BridgetAnswers
import BridgetContext
import BridgetDTOs
import Foundation

extension DoctorCommand {
    /// Where the saved routes are, how many, and whether the store holds routes the file has not (an earlier
    /// Bridget kept them there; another store's routes show up when `store.path` changes).
    func routesCheck(_ context: AppContext) async -> Check {
        let file = RouteFile(path: context.assembly.configuration.routesPath)
        do {
            let saved = file.exists ? try await file.routes() : []
            let known = Set(saved.map(\.id))
            // A store that cannot be opened is the store check's finding; here it only means nothing stranded. A
            // store whose routes were copied in already offers nothing: a route removed since stays removed.
            let copied = file.exists ? try file.copiedStores() : []
            let stored = copied.contains(context.assembly.storeDescription) ? []
                : (try? await RouteBook.opening(context, forReading: true).storedRoutes()) ?? []
            let stranded = stored.filter { !known.contains($0.id) }
            let detail = "\(saved.count) saved routes in \(file.path)" + (file.exists ? "" : " (not created yet)")
            guard stranded.isEmpty || !file.exists else {
                return Check(name: "routes", ok: false,
                             detail: detail + "; the store at \(context.assembly.storeDescription) holds "
                                + "\(stranded.count) more (\(stranded.map(\.id).sorted().joined(separator: ", ")))",
                             hint: "copy them into the routes file: bridget route import --from-store")
            }
            return Check(name: "routes", ok: true, detail: detail, hint: nil)
        } catch {
            return Check(name: "routes", ok: false, detail: "\(error)", hint: nil)
        }
    }
}
