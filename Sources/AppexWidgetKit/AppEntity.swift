/// A thing of the app's a parameter can hold, as App Intents' `AppEntity`: a hero, a calendar,
/// a city. A configuration keeps its identifier; the widget's intent gets the entity back from
/// its ``defaultQuery``, and the desktop's "Edit widget" form lists the query's suggestions.
///
/// ```swift
/// struct Hero: AppEntity {
///     let id: String
///     let name: String
///     static let typeDisplayRepresentation: TypeDisplayRepresentation = "Hero"
///     static let defaultQuery = HeroQuery()
///     var displayRepresentation: DisplayRepresentation { DisplayRepresentation(title: "\(name)") }
/// }
///
/// struct HeroQuery: EntityQuery {
///     func entities(for identifiers: [Hero.ID]) async throws -> [Hero] { Hero.all.filter { identifiers.contains($0.id) } }
///     func suggestedEntities() async throws -> [Hero] { Hero.all }
/// }
/// ```
public protocol AppEntity: Identifiable, Sendable where ID: Codable & Sendable {
    /// The query that finds entities of this type by identifier and suggests them.
    associatedtype DefaultQuery: EntityQuery where DefaultQuery.Entity == Self
    /// The type's name, as a person reads it.
    static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
    /// The entity as a person reads it.
    var displayRepresentation: DisplayRepresentation { get }
    /// The query of this type.
    static var defaultQuery: DefaultQuery { get }
}

/// Finds a type's entities, as App Intents' `EntityQuery`.
public protocol EntityQuery: Sendable {
    /// The entities' type.
    associatedtype Entity: AppEntity
    /// A query.
    init()
    /// The entities of `identifiers` that still exist.
    func entities(for identifiers: [Entity.ID]) async throws -> [Entity]
    /// The entities a person picks from (the "Edit widget" form's choices).
    func suggestedEntities() async throws -> [Entity]
    /// The entity a new widget starts with; `nil` for none.
    func defaultResult() async -> Entity?
}

extension EntityQuery {
    /// None.
    public func suggestedEntities() async throws -> [Entity] { [] }
    /// None.
    public func defaultResult() async -> Entity? { nil }
}

/// A query that finds entities from text a person types, as App Intents' `EntityStringQuery`.
public protocol EntityStringQuery: EntityQuery {
    /// The entities that match `string`.
    func entities(matching string: String) async throws -> [Entity]
}

/// A query that can list every entity, as App Intents' `EnumerableEntityQuery`.
public protocol EnumerableEntityQuery: EntityQuery {
    /// Every entity.
    func allEntities() async throws -> [Entity]
}

extension EnumerableEntityQuery {
    /// Every entity.
    public func suggestedEntities() async throws -> [Entity] { try await allEntities() }
    /// The entities among all whose identifier is one of `identifiers`.
    public func entities(for identifiers: [Entity.ID]) async throws -> [Entity] {
        try await allEntities().filter { identifiers.contains($0.id) }
    }
}

/// How an entity parameter is kept, found and listed: by its identifier's JSON.
enum EntityParameterSupport {
    /// The identifier's JSON text.
    static func identifierText<Entity: AppEntity>(of entity: Entity) -> String? { ParameterJSON.text(of: entity.id) }

    /// The entity whose identifier is `json`, as its query finds it; `nil` when it finds none.
    static func entity<Entity: AppEntity>(_ type: Entity.Type, identifiedBy json: JSONValue) async throws -> Entity? {
        let identifier = try JSONDecoder().decode(Entity.ID.self, from: JSONEncoder().encode(json))
        return try await Entity.defaultQuery.entities(for: [identifier]).first { $0.id == identifier }
    }

    /// The query's suggestions as options.
    static func options<Entity: AppEntity>(of type: Entity.Type) async -> [WidgetParameter.Option] {
        guard let entities = try? await Entity.defaultQuery.suggestedEntities() else { return [] }
        return entities.compactMap { entity in
            identifierText(of: entity).map {
                WidgetParameter.Option(value: $0, title: entity.displayRepresentation.title.key)
            }
        }
    }

    /// The query's default entity.
    static func defaultEntity<Entity: AppEntity>(of type: Entity.Type) async -> Entity? {
        await Entity.defaultQuery.defaultResult()
    }
}
