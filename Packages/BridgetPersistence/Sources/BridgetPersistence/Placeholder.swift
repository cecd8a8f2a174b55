public enum PlaceholderPersistence {}
